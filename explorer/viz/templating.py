"""HTML from the templates in ``explorer/viz/templates`` and the folders other layers add (the
web app's, under ``serve/``), with jinja2 imported lazily: text stays text.

Every ``.html`` and ``.svg`` template is autoescaped, so a position reaches markup only escaped;
data reaches a script only through `script_json`; `content_security_policy` allows a page's own
scripts by hash and nothing else. The graph page, the notebook views and the web app share this.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.viz import palette

if TYPE_CHECKING:
    import jinja2

#: Where the templates, the page's style sheet and its own scripts are (package data).
TEMPLATES = Path(__file__).with_name("templates")
#: More template folders by the first part of a template's name (the web app adds ``serve``).
FOLDERS: dict[str, Path] = {}
#: The vis-network build pyvis ships (the page inlines it: no CDN, no request).
VIS_NETWORK = ("lib", "vis-9.1.2", "vis-network.min.js")

# what could end a script element or start an HTML comment inside one, and the two line
# separators older JavaScript parsers refuse in strings
_SCRIPT_ESCAPES = (
    ("&", "\\u0026"),
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


@cache
def environment() -> jinja2.Environment:
    """The shared jinja2 environment: autoescaping ``.html``/``.svg``, strict about names."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_source),
        autoescape=jinja2.select_autoescape(["html", "svg"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["palette"] = palette
    env.filters["script_json"] = script_json
    return env


def add_folder(prefix: str, folder: Path) -> None:
    """Serve the templates named ``prefix/...`` from `folder`."""
    FOLDERS[prefix] = folder


def _path(name: str) -> Path:
    """The file of the template `name`: in a folder added for its first part, else here."""
    prefix, _, rest = name.partition("/")
    return FOLDERS[prefix] / rest if rest and prefix in FOLDERS else TEMPLATES / name


def _source(name: str) -> tuple[str, str, Any] | None:
    """A template's text for jinja2's loader (None when there is no such file)."""
    path = _path(name)
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8"), str(path), lambda: True


def render(name: str, /, **context: Any) -> str:
    """Render the template `name` (a file in `TEMPLATES`) with `context`.

    Examples
    --------
    >>> render("frame.html", page="<p>G = 0</p>")
    '<iframe srcdoc="&lt;p&gt;G = 0&lt;/p&gt;" sandbox="allow-scripts" ...></iframe>'
    """
    return environment().get_template(name).render(**context)


def script_json(value: Any) -> str:
    """`value` as JSON that is safe inside an HTML ``<script>`` element.

    ``&``, ``<`` and ``>`` become ``\\u`` escapes (so no text can close the script or open a
    comment), as do U+2028 and U+2029; the result is still exactly `value` to a JSON parser.

    Examples
    --------
    >>> script_json({"label": "</script>&\\u2028"})
    '{"label":"\\\\u003c/script\\\\u003e\\\\u0026\\\\u2028"}'
    >>> json.loads(script_json(["</script>"])) == ["</script>"]
    True
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for character, escape in _SCRIPT_ESCAPES:
        text = text.replace(character, escape)
    return text


def script_hash(script: str) -> str:
    """The CSP source (``'sha256-...'``) allowing exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: Iterable[str]) -> str:
    """A policy letting `scripts` (inline, by hash) run and no request leave the page.

    ``default-src 'none'`` stops every fetch; scripts are allowed by hash only, so markup that
    slipped into a page could not run an inline handler.
    """
    hashes = " ".join(sorted({script_hash(s) for s in scripts}))
    return f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src {hashes}"


def trusted(text: str) -> Any:
    """`text` to be written as it is, unescaped: only our own scripts and policies, or JSON
    from `script_json` (a ``markupsafe.Markup``, jinja2's)."""
    from markupsafe import Markup

    return Markup(text)


@cache
def asset(name: str) -> str:
    """A file of `TEMPLATES` used as it is (a style sheet, one of the page's scripts)."""
    return _path(name).read_text(encoding="utf-8")


@cache
def vis_network() -> str:
    """The vis-network library, from the pyvis package's files (pyvis itself is not imported).

    Raises
    ------
    RuntimeError
        When the installed pyvis does not ship it, or the file could close its script element.
    """
    spec = importlib.util.find_spec("pyvis")
    folders = [] if spec is None else list(spec.submodule_search_locations or [])
    for folder in folders:
        path = Path(folder, "templates", *VIS_NETWORK)
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if "</script" in text.lower() or "<!--" in text:
                raise RuntimeError(f"{path} cannot be inlined in a script element")
            return text
    raise RuntimeError(
        f"pyvis' copy of vis-network ({'/'.join(VIS_NETWORK)}) is missing: reinstall pyvis"
    )
