"""Links in messages: escaped first, http(s) only, nothing leaks through the markup."""
import doctest

import pytest

from social.templatetags import social_tags
from social.templatetags.social_tags import linkify


def test_doctests():
    assert doctest.testmod(social_tags).failed == 0


@pytest.mark.parametrize(
    "text,expected",
    [
        ("plain <i>text</i>", "plain &lt;i&gt;text&lt;/i&gt;"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("ftp://x.example/", "ftp://x.example/"),
        ('http://a.example/"onmouseover="x', '<a href="http://a.example/" '
         'rel="nofollow noopener noreferrer" target="_blank">http://a.example/</a>'
         '&quot;onmouseover=&quot;x'),
        ("(see https://en.wikipedia.org/wiki/Gin_(card_game))",
         '(see <a href="https://en.wikipedia.org/wiki/Gin_(card_game)" '
         'rel="nofollow noopener noreferrer" target="_blank">'
         "https://en.wikipedia.org/wiki/Gin_(card_game)</a>)"),
        ("https://", "https://"),
    ],
)
def test_linkify(text, expected):
    assert str(linkify(text)) == expected


def test_every_anchor_is_safe():
    html = str(linkify("a https://x.example/<script> b http://y.example c"))
    assert "<script>" not in html
    assert html.count("<a ") == 2
    assert html.count('rel="nofollow noopener noreferrer"') == 2
