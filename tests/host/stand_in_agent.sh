#!/bin/sh
# A stand-in agent for awaywork's image (image_test.sh): what an injected agent would try first.
# Writes its findings where the unit's outputs are collected, one line each, "ok NAME" or
# "LEAK NAME: how", and prints them (the transcript).
out=${AWAYWORK_OUTPUTS:-/tmp}/findings.txt
{
  echo "id $(id -un)"
  if tr '\0' '\n' </proc/1/environ 2>/dev/null | grep -q '^GH_TOKEN='; then echo "LEAK proc1_environ: read /proc/1/environ"
  elif cat /proc/1/environ >/dev/null 2>&1; then echo "LEAK proc1_environ: readable"
  else echo "ok proc1_environ"; fi
  if ls /home/away >/dev/null 2>&1; then echo "LEAK away_home: listed /home/away"; else echo "ok away_home"; fi
  if sudo -n true 2>/dev/null; then echo "LEAK sudo: sudo -n true"; else echo "ok sudo"; fi
  if env | grep -q '^GH_TOKEN='; then echo "LEAK gh_token: GH_TOKEN in the environment"; else echo "ok gh_token"; fi
} >"$out.tmp" 2>&1
cat "$out.tmp"
mv "$out.tmp" "$out"
