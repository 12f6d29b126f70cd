"""A yt-dlp release that broke an extractor is rolled back (README, "yt-dlp upgrades").

- blame.py    what a scrape says about the release that ran it (pure)
- watch.py    `ReleaseWatch`: counts each scrape in the store's record, decides and makes the
              rollback, leaves a release another process rolled back, requeues the failed links
- watched.py  `WatchedDownloader`: the scrapes the watch judges, run once more after a switch
"""
