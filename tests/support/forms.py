"""The POST forms of a page, read from its HTML as a browser would submit them untouched."""
from __future__ import annotations

from html.parser import HTMLParser


class _Forms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms, self.cur, self.select = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "get").lower() == "post":
            self.cur = {"action": a.get("action") or "", "fields": {}}
            self.forms.append(self.cur)
        elif self.cur is None:
            return
        elif tag == "input" and a.get("name"):
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                self.cur["fields"].setdefault(a["name"], None)
                return
            if kind == "file":
                return
            self.cur["fields"][a["name"]] = a.get("value", "")
        elif tag == "textarea" and a.get("name"):
            self.cur["fields"][a["name"]] = "hello"
        elif tag == "select" and a.get("name"):
            self.select = a["name"]
            self.cur["fields"][a["name"]] = None
        elif tag == "option" and self.select:
            if self.cur["fields"].get(self.select) is None or "selected" in a:
                self.cur["fields"][self.select] = a.get("value", "")
        elif tag == "button" and a.get("name"):
            self.cur["fields"].setdefault(a["name"], a.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "form":
            self.cur = None
        elif tag == "select":
            self.select = None


def post_forms(html: str) -> list[tuple[str, dict[str, str]]]:
    """Each ``method="post"`` form of ``html`` as (action, fields): a field's value is its
    default (a select's selected or first option, a checked box's value, a textarea "hello");
    unchecked boxes and file inputs are left out, as a browser leaves them."""
    p = _Forms()
    p.feed(html)
    return [(f["action"], {k: v for k, v in f["fields"].items() if v is not None})
            for f in p.forms]
