"""The worker side: what a worker does with a job it claimed.

- download/    `download_video`: a link in a chat becomes the video (or its sound) in that chat,
               with the job's log message on the way, ⚠️/💥 on failures, a fan-out for a post
               of several videos, and a prompt first for a long one in a group
- inline.py    `download_inline`: the video for an inline placeholder, swapped in place
- delivery/    the one path both take: guard, scrape, download once, upload, record the file_id
- periodic.py  the periodic jobs: yt-dlp's self-update and the sweeps
- job_types.py the one list of job types vidrelay runs
- fenced.py    `FencedMessengers`: the Messenger a job's attempt talks through, fenced by its lease
- site_refusals.py  what the operator hears when a site refuses the server a video

The handler side (`core.incoming`) never imports anything here.
"""
