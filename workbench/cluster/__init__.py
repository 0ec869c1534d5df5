"""Running the workbench's batch path on a cluster (Ray)."""
