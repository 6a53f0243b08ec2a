# shellcheck shell=bash
# apt_install PACKAGE…: installs the packages with apt-get, as root, without questions;
# when that fails (package lists a fresh machine lacks, or stale ones), updates the lists and
# tries once more. Its output is apt's own, for the caller to keep or drop.
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; }
}
