"""The Viewer (``pages/viewer.py``): drop documents, read each page's regions and Markdown.

``page`` draws it; ``live`` asks the background worker (:mod:`workbench.ui.jobs`) for pages
and polls while they run; ``runs`` says where they are stored; ``downloads`` offers them."""
