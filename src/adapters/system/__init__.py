"""What the operating system itself provides: the wall clock."""
