/*
  batlehub's YARA rules: the loader, dropper and exfiltration patterns real malicious npm
  and PyPI packages use (bench/verdicts: the corpus they were written against and measured
  on), each narrow enough that none fires on the benign corpus. docs/verdicts.md lists each
  with its severity and why; tests/scanners/yara_rules_test.cc holds a benign and a
  malicious fixture for each.

  `severity` meta (low, medium, high, critical) is the finding's severity before its place
  is considered: batlehub lowers a match in a package's tests, docs or examples to low, and
  raises one in install-time code (setup.py, *.pth) a step (docs/verdicts.md). high when
  absent. Python rules require the file to import what they look for, so that JavaScript's
  RegExp.exec or a `.text` field elsewhere never reads as Python.
*/

rule batlehub_install_script_pipes_download_to_shell : install_hook
{
  meta:
    description = "an npm lifecycle script pipes a download into a shell"
    severity = "critical"
  strings:
    $hook = /"(pre|post)?install"\s*:\s*"[^"\n]{0,300}(curl|wget)[^"\n]{0,300}\|\s*(ba|da|z)?sh\b/
  condition:
    $hook
}

rule batlehub_setup_py_runs_a_downloaded_script : install_hook
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

rule batlehub_js_base64_payload_is_evaluated : obfuscation
{
  meta:
    description = "JavaScript decodes a base64 payload and evaluates it as code (eval, new Function, vm)"
    severity = "high"
  strings:
    // The decoded value flows straight into the evaluator: eval(atob(…)),
    // Function(Buffer.from(…, 'base64')…), vm.runInThisContext(Buffer.from(…)).
    $direct = /\b(eval|Function|runInThisContext|runInNewContext)\s*\(\s*(atob\s*\(|Buffer\.from\s*\([^)\n]{1,400},\s*['"]base64['"]\))/
    $to_string = /\b(eval|Function|runInThisContext|runInNewContext)\s*\(\s*Buffer\.from\s*\([^)\n]{1,400},\s*['"]base64['"]\)\.toString\(/
  condition:
    $direct or $to_string
}

rule batlehub_py_decoded_payload_is_executed : obfuscation
{
  meta:
    description = "Python executes code it decodes or decompresses in the same expression (base64, zlib, marshal, hex, rot13)"
    severity = "high"
  strings:
    $exec = /\b(exec|eval)\s*\(\s*(compile\s*\(\s*)?([A-Za-z_][A-Za-z0-9_]*\.){0,2}(b64decode|b32decode|b85decode|a85decode|decompress|loads|fromhex|unhexlify)\s*\(/
    $import = /\b(exec|eval)\s*\(\s*__import__\s*\(\s*['"](base64|zlib|marshal|codecs|lzma|bz2)['"]\s*\)/
    $rot = /\b(exec|eval)\s*\(\s*codecs\.decode\s*\([^)\n]{1,4000},\s*['"]rot.?13['"]/
  condition:
    any of them
}

rule batlehub_py_environment_is_sent_out
{
  meta:
    description = "Python sends the whole process environment (every variable, credentials included) over the network"
    severity = "high"
  strings:
    $env1 = /\b(json|data|params)\s*=\s*(dict\s*\(\s*)?os\.environ\b/
    $env2 = /json\.dumps\s*\(\s*(dict\s*\(\s*)?os\.environ\b/
    // The environment held in a variable is what every library that reads a setting or
    // copies it for a child process does (mkdocstrings substitutes ${VAR} in a URL); it is
    // sent only when that variable goes out whole: serialised, or as a request's body.
    $held1 = /=\s*dict\s*\(\s*os\.environ\s*\)/
    $held2 = /=\s*os\.environ\s*(\n|#)/
    $whole1 = /json\.dumps\s*\(\s*[A-Za-z_][A-Za-z0-9_]{0,40}\s*\)/
    $whole2 = /\b(json|data)\s*=\s*(dict\s*\(\s*)?[A-Za-z_][A-Za-z0-9_]{0,40}\s*[,)]/
    $send1 = /requests\.(post|put|get)\s*\(/
    $send2 = /urlopen\s*\(/
    $send3 = /http\.client\.HTTPS?Connection\s*\(/
    $py = /(^|\n)\s*(import|from)\s+os\b/
  condition:
    $py and (any of ($env*) or (any of ($held*) and any of ($whole*))) and any of ($send*)
}

rule batlehub_py_download_is_executed
{
  meta:
    description = "Python downloads code or a program and runs it (exec of a response, a fetched .exe or .jar started)"
    severity = "high"
  strings:
    $exec_resp = /\bexec\s*\(\s*[^)\n]{0,20}(requests\.get|urlopen)\s*\(/
    $exec_text = /\bexec\s*\(\s*[A-Za-z_][A-Za-z0-9_]*\.(text|content)\s*\)/
    $dl1 = /requests\.get\s*\(/
    $dl2 = /urlopen\s*\(/
    $dl3 = /urlretrieve\s*\(/
    $run_exe = /(subprocess\.(run|call|Popen|check_call|check_output)|os\.(system|startfile|popen))\s*\(\s*\[?\s*(f?["'][^"'\n]{0,120}\.(exe|scr|bat|cmd|vbs|jar)\b|["']java["']\s*,\s*["']-jar["'])/
    $start = /os\.system\s*\(\s*f?["']start\s/
    $py = /(^|\n)\s*(import|from)\s+(requests|urllib|subprocess|os)\b/
  condition:
    $py and ($exec_resp or $exec_text or (any of ($dl*) and ($run_exe or $start)))
}

rule batlehub_windows_startup_persistence
{
  meta:
    description = "code installs itself to run at logon (the Startup folder, the Run registry key)"
    severity = "medium"
  strings:
    $startup1 = /Start Menu[\\\/"', ]{1,6}Programs[\\\/"', ]{1,6}Startup/
    $run_key = /Software\\{1,2}Microsoft\\{1,2}Windows\\{1,2}CurrentVersion\\{1,2}Run\b/ nocase
    $write = /(copy|copyfile|move|write|SetValueEx|open)\s*\(/
  condition:
    ($startup1 or $run_key) and $write
}

rule batlehub_py_builtins_obfuscated_in_setup
{
  meta:
    description = "a setup.py reaches builtins through string tricks (getattr(__builtins__, …), __builtins__.__dict__[…])"
    severity = "high"
  strings:
    $setup = "setup("
    $b1 = /getattr\s*\(\s*__builtins__\s*,/
    $b2 = /__builtins__\s*\.\s*__dict__\s*\[/
  condition:
    // exec(compile(open(version_file).read(), …)) is how coverage and others read their own
    // version: it was a pattern here until the held-out half showed it on coverage
    $setup and any of ($b*)
}

rule batlehub_token_stealer_webhook
{
  meta:
    description = "code collects Discord or browser tokens and posts them to a chat webhook"
    severity = "high"
  strings:
    $hook1 = /discord(app)?\.com\/api\/webhooks\//
    $hook2 = /api\.telegram\.org\/bot/
    $loot1 = "Local Storage" nocase
    $loot2 = "leveldb" nocase
    $loot3 = /\btokens?\b/
    $loot4 = "Login Data"
    $loot5 = /\bcookies?\b/ nocase
    $loot6 = "browser_cookie3"
    $loot7 = ".ROBLOSECURITY"
  condition:
    // "token" and "cookie" are English: an API client's docs that name a Discord webhook say
    // both (@posthog/cli, held-out-7). One store a stealer reads must be named too.
    any of ($hook*) and 2 of ($loot*) and any of ($loot1, $loot2, $loot4, $loot6, $loot7)
}

rule batlehub_py_fetched_program_is_started
{
  meta:
    description = "Python downloads a Windows program from a URL and starts it"
    severity = "high"
  strings:
    $url = /https?:\/\/[^"'\s]{1,300}\.(exe|scr|msi|bat)["']/
    $dl = /(urlretrieve|requests\.get|urlopen)\s*\(/
    $run = /(subprocess\.(run|Popen|call|check_call)|os\.startfile|os\.system)\s*\(/
    $py = /(^|\n)\s*(import|from)\s+(requests|urllib|subprocess|os)\b/
  condition:
    $py and $url and $dl and $run
}

rule batlehub_py_request_to_an_encoded_address
{
  meta:
    description = "Python sends a request to an address it hides in base64"
    severity = "high"
  strings:
    $req = /(requests\.(post|get|put)|urlopen|request\.Request|Request)\s*\(\s*(url\s*=\s*)?(base64\.)?b64decode\s*\(/
    // any client's post/get (an aiohttp session, httpx): session.post(base64.b64decode(…))
    $client = /\.(post|get|put)\s*\(\s*(url\s*=\s*)?(base64\.)?b64decode\s*\(/
  condition:
    any of them
}

rule batlehub_py_environment_walked_and_sent
{
  meta:
    description = "Python walks every environment variable and sends what it collected"
    severity = "high"
  strings:
    $walk = /for\s+[A-Za-z_][A-Za-z0-9_]*(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)?\s+in\s+os\.environ(\.items\(\))?\s*:/
    $send = /(requests\.(post|put)|urlopen|http\.client\.HTTPS?Connection)\s*\(/
    $py = /(^|\n)\s*(import|from)\s+os\b/
  condition:
    // the send follows the walk closely: a proxy lookup that walks the environment in a
    // module that also opens URLs elsewhere (urllib's getproxies) is not a collection sent out
    $py and for any i in (1..#walk) : (for any j in (1..#send) : (@send[j] > @walk[i] and @send[j] - @walk[i] < 1500))
}

rule batlehub_py_obfuscator_signature
{
  meta:
    description = "Python packed by an obfuscator malware favours (pyobfuscate, decoders imported under underscore aliases)"
    severity = "high"
  strings:
    $pyobf = "pyobfuscate.com"
    $alias = /import\s+(base64|marshal|zlib|lzma)\s+as\s+_{3,}\b/
  condition:
    any of them
}

rule batlehub_py_cloud_credentials_posted
{
  meta:
    description = "Python reads the cloud SDK's credentials (access and secret key) and posts them with requests"
    severity = "high"
  strings:
    $creds = /\.get_credentials\s*\(\s*\)/
    $secret = /\.(secret_key|access_key)\b/
    $post = /requests\.(post|put)\s*\(/
  condition:
    $creds and $secret and $post
}

rule batlehub_py_secrets_collected_and_uploaded
{
  meta:
    description = "Python gathers a user's secret stores (SSH keys, shell history, git and cloud credentials) and uploads them"
    severity = "high"
  strings:
    $s1 = /["'~\/]\.ssh\b/
    $s2 = /\.?(bash|zsh|zh)_?[hH]istory\b/
    $s3 = /\.gitconfig\b/
    $s4 = /\.aws[\/\\]credentials\b/
    $s5 = /\.git-credentials\b/
    $s6 = /\.npmrc\b/
    $up1 = /\bcurl\b[^\n]{0,80}\s-(F|T|-upload-file|-data-binary)\s/
    $up2 = /requests\.(post|put)\s*\([^)\n]{0,200}\bfiles\s*=/
    $up3 = /ftplib\.FTP\b/
    $py = /(^|\n)\s*(import|from)\s+(os|shutil|subprocess|requests)\b/
  condition:
    $py and 2 of ($s*) and any of ($up*)
}

rule batlehub_py_module_loaded_from_a_disguised_zip
{
  meta:
    description = "Python imports a module from a zip it ships under a name that is not an archive's (server.crt, logo.png)"
    severity = "high"
  strings:
    // zipimporter over a .zip/.egg/.whl is packaging; over a certificate or an image it is a hiding place
    $disguised = /zipimporter\s*\([^\n]{0,200}\.(crt|pem|key|png|jpe?g|gif|ico|dat|bin|txt|json|cfg|ini)["']/
  condition:
    $disguised
}

rule batlehub_py_encoded_address_is_contacted
{
  meta:
    description = "Python decodes a web address it hides in base64 or hex and contacts the network"
    severity = "high"
  strings:
    // "http://" and "https://" as base64 (three alignments) and as hex
    $b64_1 = "aHR0cDovL"
    $b64_2 = "aHR0cHM6Ly"
    $b64_3 = "h0dHA6Ly"
    $b64_4 = "h0dHBzOi8v"
    $b64_5 = "odHRwOi8v"
    $b64_6 = "odHRwczovL"
    $hex = /68747470(73)?3a2f2f/ nocase
    $dec = /\b(b64decode|b32decode|urlsafe_b64decode|decodebytes|fromhex|unhexlify)\s*\(/
    $send = /\b(urlopen|requests\.(get|post|put)|httpx\.(get|post)|http\.client\.HTTPS?Connection|socket\.socket|\.(post|get)\s*\(\s*url)\s*\(?/
    $py = /(^|\n)\s*(import|from)\s+(base64|binascii|codecs|requests|urllib|http|socket|httpx|aiohttp)\b/
  condition:
    $py and any of ($b64_*, $hex) and $dec and $send
}

rule batlehub_py_setup_decodes_and_starts_a_process : install_hook
{
  meta:
    description = "a setup.py decodes a hidden payload (base64, zlib, hex, marshal) and starts a process or runs code"
    severity = "high"
  strings:
    $setup = /\bsetup\s*\(/
    // a setup script imports setuptools or distutils: JavaScript calling its own setup() does not
    $py = /(^|\n)\s*(from|import)\s+(setuptools|distutils)\b/
    $dec = /\b(b64decode|b32decode|b85decode|decompress|fromhex|unhexlify|marshal\.loads)\s*\(/
    $run = /\b(Popen|check_output|check_call|os\.system|os\.popen|startfile|subprocess\.(run|call))\s*\(/
    $exec = /\bexec\s*\(\s*[a-zA-Z_]/
  condition:
    $py and $setup and $dec and ($run or $exec)
}

rule batlehub_chat_or_browser_token_stores_read
{
  meta:
    description = "code reads the token stores of chat clients and browsers (Discord's Local Storage/leveldb, the browsers' Login Data)"
    severity = "high"
  strings:
    $discord = /discord(canary|ptb)?/ nocase
    $ls = "Local Storage" nocase
    $ldb = "leveldb" nocase
    $login = "Login Data"
    $userdata = "User Data"
  condition:
    $discord and $ldb and ($ls or $login or $userdata)
}

rule batlehub_py_host_identity_and_environment_sent
{
  meta:
    description = "Python gathers who and where it runs (host name, user, environment) and sends it out"
    severity = "high"
  strings:
    $host1 = /\b(os\.uname|platform\.node|socket\.gethostname|getpass\.getuser|os\.getlogin)\s*\(/
    $env = /(dict\s*\(\s*os\.environ\s*\)\.keys|os\.environ\.keys\s*\(|json\.dumps\s*\(\s*(dict\s*\()?\s*os\.environ|str\s*\(\s*os\.environ\s*\))/
    $ip = /(ipinfo\.io|api\.ipify\.org|ifconfig\.me|checkip\.amazonaws|icanhazip)/
    $send = /\b(urlopen|requests\.(post|put)|http\.client\.HTTPS?Connection|\.sendto|\.sendall)\s*\(/
    $py = /(^|\n)\s*(import|from)\s+(os|socket|platform|getpass)\b/
  condition:
    $py and $host1 and ($env or $ip) and $send
}
