"""The web app (`explorer serve`): a read-only Starlette app over a stored database.

`app` holds its pages and routes (`create_app`), `charts` what they draw, `cache` the counts
computed in the background, `middleware` the host check and security headers, and `server`
the socket and uvicorn (`serve`).
"""
