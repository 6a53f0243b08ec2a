# debian_mirror SUITE: the mirror this machine's apt sources use for SUITE, in the deb822
# form (a stanza of type deb whose Suites include it) or the one-line form (options
# dropped); nothing when there is none. Sourced by scripts/package-test and scripts/image.
debian_mirror() {
  local suite="$1" mirror
  mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$suite" '
    BEGIN { RS = ""; FS = "\n" }
    {
      types = ""; uris = ""; suites = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^Types:/) types = $i
        if ($i ~ /^URIs:/) { split($i, u, /[ \t]+/); uris = u[2] }
        if ($i ~ /^Suites:/) suites = $i " "
      }
      if (types ~ /[ \t]deb([ \t]|$)/ && index(suites, " " suite " ") && uris != "") { print uris; exit }
    }' || true)"
  if [ -z "$mirror" ]; then
    mirror="$(sed 's/\[[^]]*\]//' /etc/apt/sources.list 2>/dev/null |
      awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' || true)"
  fi
  echo "$mirror"
}
