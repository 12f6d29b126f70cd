"""The intake: a message with links becomes one durable job per distinct, allowed URL.

- links.py     `LinkIntake.accept`: the message in, an `IntakeReport` out (what the handler says)
- message.py   `IncomingMessage` and `IntakeReport`, the two values the handler and the intake share
- announce.py  a private chat's log message goes out as soon as its job exists
- limits.py    the operator's per-user hourly and daily link limits, counted in the store
- windows.py   the pure rule behind them: which limit refuses one more link, and until when
"""
