import sys

print("giving up")
sys.exit(3)
