"""What an HTML string holds once parsed: its start tags and their attributes (test helper)."""

from __future__ import annotations

from html.parser import HTMLParser


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)


def parsed(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    parser.close()
    return parser
