"""The page overlay: layout regions drawn over a page image, selectable from box or text.

``element`` is the Streamlit element and its contract; ``client`` its CSS and JavaScript."""
