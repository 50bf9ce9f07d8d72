#!/usr/bin/env python3
"""Writes a tool's bash completion from its --help (CLI11's format).

    python3 scripts/gen-completion.py build/bin/tg-run OUT_FILE

CMake runs it at install time for each tool (CMakeLists.txt, "Install"), so the completion is
made from the binary being installed and a flag added to a tool is completed without anyone
editing a completion file. From the help it takes: every option's names, short and long;
whether an option takes a value and which kind (INT/UINT/FLOAT: a number, nothing to offer;
CLI11's `TEXT:{a,b}` set or a description ending in a list `...: A, B, C`: those words; DIR
as the type or in the description: folders; anything else: file names, as bash offers for a
word it knows nothing about); positionals complete file names.

The file it writes needs nothing but bash (no bash-completion package): bash-completion's
loader sources it from share/bash-completion/completions/<tool> on first use, and a user
without that package can `source` it.
"""
import re
import shlex
import subprocess
import sys
from pathlib import Path

NUMBER_TYPES = {"INT", "UINT", "FLOAT", "NUMBER", "DOUBLE"}
# What CLI11 prints after an option's names that is not its value type.
NOT_A_TYPE = ("REQUIRED", "Excludes:", "Needs:", "...", "(Env:")


class Option:
  def __init__(self, names, value_type):
    self.names = names  # ["-d", "--device"]
    self.value_type = value_type  # None for a flag, else CLI11's type text: "TEXT=CLANG", "INT:POSITIVE"
    self.description = ""

  def choices(self):
    """The fixed words the value can be, or [] when the help does not list them."""
    if self.value_type and (m := re.search(r"\{([^}]*)\}", self.value_type)):
      return [c.split("->")[0] for c in m.group(1).split(",") if c]  # IsMember, Transformer maps
    # A description ending in a list of single words: "target device: CLANG, LLVM, GPU, CUDA"
    m = re.search(r":\s*([^:;()]+?)\s*(\([^)]*\))?\.?$", self.description)
    if not m:
      return []
    words = [w.strip() for w in re.split(r",|\bor\b", m.group(1))]
    simple = all(re.fullmatch(r"[\w.+-]+", w) for w in words)
    return words if len(words) >= 2 and simple else []

  def value_kind(self):
    """'choices', 'number', 'dirs' or 'files'."""
    if self.choices():
      return "choices"
    base = re.split(r"[:=\[ ]", self.value_type)[0]
    if base in NUMBER_TYPES:
      return "number"
    if base == "DIR" or re.search(r"\bDIR\b", self.description):  # "--out-dir TEXT  ... into DIR"
      return "dirs"
    return "files"  # what bash offers for a word it knows nothing about


def parse_help(text):
  """Options and whether there are positionals, from CLI11's help."""
  options, has_positionals, section, last = [], False, "", None
  for line in text.splitlines():
    if line and not line[0].isspace():  # "Options:", "Positionals:", an option group's name
      section, last = line.rstrip(":"), None
      continue
    stripped = line.strip()
    if not stripped:
      continue
    if section == "Positionals":
      has_positionals = True
    elif stripped.startswith("-"):
      # the option's text and its description are two columns, at least two spaces apart
      head = re.split(r"\s{2,}", stripped, maxsplit=1)[0]
      description = stripped[len(head):].strip()
      tokens = head.split()
      value_type = tokens[1] if len(tokens) > 1 and not tokens[1].startswith(NOT_A_TYPE) else None
      last = Option(tokens[0].split(","), value_type)
      last.description = description
      options.append(last)
    elif last is not None:  # a description continued on the next line
      last.description = (last.description + " " + stripped).strip()
  return options, has_positionals


def render(tool, options, has_positionals):
  func = "_" + re.sub(r"\W", "_", tool)
  files = 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur")'
  dirs = 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur")'
  cases = []
  for o in (o for o in options if o.value_type):
    kind = o.value_kind()
    if kind == "choices":
      action = f'mapfile -t COMPREPLY < <(compgen -W {shlex.quote(" ".join(o.choices()))} -- "$cur")'
    else:
      action = {"number": "COMPREPLY=()", "dirs": dirs, "files": files}[kind]
    cases.append(f"    {'|'.join(o.names)}) {action}; return ;;")
  names = " ".join(n for o in options for n in o.names)
  other = files if has_positionals else f'mapfile -t COMPREPLY < <(compgen -W {shlex.quote(names)} -- "$cur")'
  lines = [
      f"# bash completion for {tool}: generated from `{tool} --help` by scripts/gen-completion.py",
      "# when tg is installed. Do not edit: a tool's flags come from its --help.",
      f"{func}() {{",
      '  local cur="${COMP_WORDS[COMP_CWORD]}" prev=""',
      '  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
      "  # bash splits --opt=value at '=' (COMP_WORDBREAKS): complete the value of --opt",
      '  if [[ $cur == "=" ]]; then',
      '    cur=""',
      '  elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then',
      '    prev="${COMP_WORDS[COMP_CWORD-2]}"',
      "  fi",
      '  case "$prev" in',
      *cases,
      "  esac",
      '  if [[ $cur == -* ]]; then',
      f'    mapfile -t COMPREPLY < <(compgen -W {shlex.quote(names)} -- "$cur")',
      "  else",
      f"    {other}",
      "  fi",
      "}",
      f"complete -F {func} {tool}",
  ]
  return "\n".join(lines) + "\n"


def main():
  if len(sys.argv) != 3:
    sys.exit("usage: gen-completion.py TOOL OUT_FILE")
  exe, out = sys.argv[1], Path(sys.argv[2])
  help_text = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True).stdout
  options, has_positionals = parse_help(help_text)
  if not any("--help" in o.names for o in options):
    sys.exit(f"gen-completion.py: {exe} --help does not look like CLI11's help")
  out.parent.mkdir(parents=True, exist_ok=True)
  out.write_text(render(Path(exe).name, options, has_positionals))


if __name__ == "__main__":
  main()
