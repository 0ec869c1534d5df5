"""The Viewer's background worker: one per app process, serving every session's pages.

``worker`` holds the board (ask, progress, turns between sessions); ``controls`` its Stop,
Resume, Cancel and Retry; ``records`` what is asked and told; ``parts`` its bookkeeping;
``runs`` which run a document's pages are written to."""
