#!/bin/sh
# Prints a greeting for the name given (or for the world).
name=${1:-world}
echo "Helo, $name!"
