"""The web app (`explorer serve`): a read-only Starlette app over a stored database."""
