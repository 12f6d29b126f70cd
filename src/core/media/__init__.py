"""Domain services of the media pipeline: the blob store and the scraped-info cache."""
