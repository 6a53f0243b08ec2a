# shellcheck shell=bash
# arm64_emulation: lets this amd64 machine run AArch64 programs as its own, as Debian's
# qemu-user-static and binfmt-support set it up at boot: binfmt_misc mounted (when it is
# not), the two packages installed (when they are not), and qemu-aarch64 registered with
# the F flag, so that it works inside a chroot or a container too. Needs root; says why
# when it cannot. Sourced by scripts/image and scripts/image-test, for the arm64 image,
# after scripts/lib/apt-install.sh.
arm64_emulation() {
  local binfmt=/proc/sys/fs/binfmt_misc
  registered() { [ -e "$binfmt/qemu-aarch64" ] && grep -q '^flags:.*F' "$binfmt/qemu-aarch64"; }
  registered && return 0
  if [ ! -e "$binfmt/register" ]; then
    mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
      { echo "cannot mount binfmt_misc at $binfmt, which running arm64 programs on amd64 needs" >&2; return 1; }
  fi
  if ! command -v qemu-aarch64-static >/dev/null || ! command -v update-binfmts >/dev/null; then
    echo "installing qemu-user-static and binfmt-support with apt-get, to run arm64 programs" >&2
    apt_install qemu-user-static binfmt-support >/dev/null 2>&1 ||
      { echo "cannot install qemu-user-static and binfmt-support" >&2; return 1; }
  fi
  registered || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  registered ||
    { echo "qemu-aarch64 is not registered with binfmt_misc (with the F flag) after installing qemu-user-static" >&2; return 1; }
}
