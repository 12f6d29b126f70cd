"""`download_video`: a link in a chat becomes the video (or its sound) in that chat.

- job.py               `DownloadVideo`: the job itself, over the shared delivery path
- chat_destination.py  where the file goes: a reply to the user's message
- chat_report.py       what the chat hears on the way: the job's log message (private chats)
- retries.py           ⚠️ before a retry, 💥 or a reaction at the end
- fan_out.py           a post of several videos becomes one child job each
- parking.py           a long video in a group asks first
- replies.py           short answers that never fail the job
"""
