"""The verbs the job store knows: a row names its job type by one of these."""

DOWNLOAD_VIDEO = "download_video"
DOWNLOAD_INLINE = "download_inline"
UPDATE_YTDLP = "update_ytdlp"
SWEEP_BLOBS = "sweep_blobs"
SWEEP_CACHES = "sweep_caches"
