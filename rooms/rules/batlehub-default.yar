/*
  batlehub's default YARA rules — DEMO RULES.

  A handful of rules that catch the demo's malicious samples (tests/fixtures/guarddog/samples:
  an npm package whose postinstall pipes curl into sh and evals a base64 payload, a PyPI
  sdist whose setup.py does the same). They show the pipeline end to end; they are not a
  malware corpus. Point `[scanners.yara] rules` at your own rules file for real use.

  Each rule may carry `severity` meta (low, medium, high, critical); batlehub reads it for
  the finding's severity, and uses high when it is absent or unreadable.
*/

rule batlehub_install_script_pipes_download_to_shell : install_hook demo
{
  meta:
    description = "an npm lifecycle script pipes a download into a shell"
    severity = "critical"
  strings:
    $hook = /"(pre|post)?install"\s*:\s*"[^"\n]{0,300}(curl|wget)[^"\n]{0,300}\|\s*(ba|da|z)?sh\b/
  condition:
    $hook
}

rule batlehub_setup_py_runs_a_downloaded_script : install_hook demo
{
  meta:
    description = "a setup.py runs a shell command that downloads a script and pipes it into a shell"
    severity = "critical"
  strings:
    $setup = "setup("
    $cmd = /(os\.system|os\.popen|subprocess\.[a-z_]{3,12})\(\s*["'][^"'\n]{0,300}(curl|wget)[^"'\n]{0,300}\|\s*(ba|da|z)?sh\b/
  condition:
    $setup and $cmd
}

rule batlehub_base64_decoded_code_is_executed : obfuscation demo
{
  meta:
    description = "code decodes a base64 payload and executes it"
  strings:
    $py_exec = /\b(exec|eval)\s*\(\s*(base64\.)?b64decode\s*\(/
    $js_b64 = /Buffer\.from\([^)\n]{1,400},\s*['"]base64['"]\)/
    $js_atob = /\batob\s*\(/
    $js_eval = /\beval\s*\(/
    $js_fn = /\bnew\s+Function\s*\(/
    $js_exec = /\bexec(Sync)?\s*\(/
  condition:
    $py_exec or (($js_b64 or $js_atob) and ($js_eval or $js_fn or $js_exec))
}
