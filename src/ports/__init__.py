"""The contract of vidrelay: Protocols named by role, and the frozen values that cross them.

This package imports nothing of the project. The core decides over these ports; adapters
implement them; entrypoints wire the two together.
"""
