"""The trusted side of the judge: catalog, grading, HTTP service and page."""
