"""Runs a command and prints its exit status (lit's shell has no $?)."""
import subprocess
import sys

rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
print(f"exit={rc}")
