"""About: engines on this machine, supported models, versions, sample sources."""

from workbench.ui.about import about_page

about_page()
