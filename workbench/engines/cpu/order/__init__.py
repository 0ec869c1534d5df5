"""Reading order: blocks in the order a reader reads them."""
