"""Domain services of the media: the single-flight download, the blob service and its sweep, the
scraped-info cache, and what makes a file playable, a sound, or fit under a limit."""
