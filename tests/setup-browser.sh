#!/usr/bin/env bash
# The live-preview test drives a real headless browser: Debian's Chromium (Playwright's own
# browser download is not used). Installs it when missing; needs root or sudo.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
