# Turns the man page generated from the command definitions into mdoc that groff reads
# without a warning: a blank line becomes a paragraph break, lines indented by two spaces
# (the examples) become a literal display, and a text line that starts with a dot or
# holds a backslash is escaped. With -v sections=FILE (what `roundup manual-sections`
# prints), that file's sections go in, as they are, before SEE ALSO or AUTHORS, or at the end.
function close_display() { if (display) { print ".Ed"; display = 0 } }
function add_sections(  line) {
  if (sections == "" || added) return
  close_display()
  while ((getline line < sections) > 0) print line
  close(sections); added = 1
}
/^\.Sh (SEE ALSO|AUTHORS)/ { skipping = 0; add_sections() }
# The generated page's own EXIT STATUS says only "0 on success": the added sections replace it.
/^\.Sh "?EXIT STATUS"?$/ && sections != "" { add_sections(); skipping = 1; next }
/^\.Sh / { skipping = 0 }
skipping { next }
{
  if ($0 == "") { close_display(); pending = 1; next }
  if ($0 ~ /^  /) {
    if (!display) { print ".Bd -literal -offset indent"; display = 1; pending = 0 }
    line = $0; gsub(/\\/, "\\e", line); sub(/^  /, "", line)
    if (line ~ /^[.']/) line = "\\&" line
    print line; next
  }
  close_display()
  if ($0 ~ /^\./) { pending = 0; print; next }
  if (pending) { print ".Pp"; pending = 0 }
  line = $0; gsub(/\\/, "\\e", line)
  if (line ~ /^'/) line = "\\&" line
  print line
}
END { close_display(); add_sections() }
