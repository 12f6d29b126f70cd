"""Domain services of the media: getting a video's bytes once, keeping and sweeping them, and what
makes a file playable, a sound, or fit under the upload limit.

- blob_service.py   `BlobService`: do we have the video, fetch its bytes once, let them go
- blob_sweep.py     `BlobSweep`: the periodic sweep (orphans, stale and leftover bytes, the cap)
- single_flight.py  `SingleFlight`: concurrent callers for one key share one task
- keyed_lock.py     `KeyedLock`: one lock per key, forgotten when unused
- info_cache.py     `InfoService`: scraped info, cached, evicted on a yt-dlp error
- playable.py       `PlayableDownloads`: a download probed, converted or compressed to fit
- playback.py       which files every client plays inline, and the plan for one that is not such
- fit.py            the bitrate that brings a video under the limit, and whether it is watchable
- sound.py          a video's sound as a blob of its own (`sound_of`, `SoundFetcher`)
- thumbnails.py     `Thumbnails`: a frame for each upload, made just before it
"""
