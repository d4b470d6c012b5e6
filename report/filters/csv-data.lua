--[[ csv-data.lua: every number in the report comes from a CSV file (pandoc 2.17, Lua 5.3).

Syntax (full description in report/README.md):

  [text]{.csv-value src=F where=SEL value=COL|=EXPR [format=FMT] [pick=PICK]}
      the single matching row's COL (or EXPR over the row's numeric columns, e.g.
      value="=2*n*n*elem_bytes/ms*1e-6"), formatted; the span's text is ignored.
  [text]{.csv-count src=F [where=SEL] [pick=PICK]}
      how many rows match (0 allowed; the file and the columns named must exist).
  [text]{.env-value key=KEY}
      a field of the enclosing experiment's env.json (NN-name.env.json, else env.json).
  ::: {.csv-table src=F where=SEL rows=KEY cols=KEY value=COL [format=FMT] [pick=PICK]
       [rows-match=PAT] [cols-match=PAT] [rows-format=FMT] [cols-format=FMT] [corner=TEXT]
       [caption=MARKDOWN]}
  :::  a pivot table: one row per distinct `rows` key, one column per distinct `cols` key.
       KEY: a column name, or a template naming columns in braces ("{rows}x{cols}");
       PAT: a Lua pattern whose first capture (else the whole match) becomes the key.
  ::: {.csv-table src=F where=SEL columns="COL[:FMT],..." [headers="H,..."] [pick=PICK] [caption=MARKDOWN]}
  :::  the matching rows, listed.
  ::: {.if-data src=F [where=SEL] absent=TEXT}
  :::  its content when F exists (with where=: and has a matching row), else TEXT.
  ::: provenance
  :::  where the enclosing experiment's data came from (its results folder's env.json).
  ::: env-table
  :::  the environment of every results folder the report used.

  SEL: comma-separated conditions, all must hold: col=v (equal), col!=v, col~glob, col!~glob
  (glob: * and ?), col<n, col<=n, col>n, col>=n (numeric); v may list alternatives a|b.
  FMT: a Lua/printf format with one directive (%.2f, %d, %s, "%.1f GB/s"), or pow2
  (2^k with superscript when the value is a power of two).
  PICK: "max:COL" or "min:COL", or several separated by commas, applied in turn: each keeps
  the rows whose COL is the largest (smallest) among those left. A csv-value then takes the
  first row left (in CSV order); a table or a count keeps them all.
  F: a bare file name is looked up in the data folder of the experiment the text belongs to;
  a path with a slash is relative to the repository root (data/published/...).

build-report wraps each experiment's section in
  ::: {.experiment name=NN-name data-dir=ABS origin=results|reference}
and passes metadata tlab-root, figures-dir, results-dir, this-host. This filter unwraps those
divs. Anything that cannot be resolved is an error that names the file and the selector:
a report must never show a blank where a number should be. One exception: a section whose
data is a run of this report's results folder (not a committed reference) may lack rows the
text quotes, because that run was narrowed (--quick, --sizes, --types, --variants) or skipped
a configuration this machine cannot hold. There a csv-value or csv-table on the run's own
files (a bare name) with no matching row, or any lookup whose file the run did not write,
reads "not measured", and a note under the section's data box counts them and says why; the
columns, picks and formats it names are still checked. Committed data (a path with a slash)
and references stay strict: every reference renders the whole report in the tests, so a
selector that matches nothing there is an error in the text.
]]

local stringify = pandoc.utils.stringify

-- How a fact that the environment record lacks is shown.
local NOT_RECORDED = "not recorded"

-- Pandoc prints a filter's error escaped and with a traceback; the plain line comes first.
local function fail(fmt, ...)
  local msg = "csv-data: " .. string.format(fmt, ...)
  io.stderr:write(msg, "\n")
  error(msg, 0)
end

-- ---------------------------------------------------------------------------------- files

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- RFC 4180 as written by tlab::csv_line: quoted fields may hold commas, quotes, newlines.
local function parse_csv(text)
  local rows, row, field, i, n = {}, {}, {}, 1, #text
  local quoted, any = false, false
  while i <= n do
    local c = text:sub(i, i)
    if quoted then
      if c == '"' and text:sub(i + 1, i + 1) == '"' then
        field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then
        quoted = false
      else
        field[#field + 1] = c
      end
    elseif c == '"' then
      quoted, any = true, true
    elseif c == "," then
      row[#row + 1] = table.concat(field); field = {}; any = true
    elseif c == "\n" or c == "\r" then
      if c == "\r" and text:sub(i + 1, i + 1) == "\n" then i = i + 1 end
      row[#row + 1] = table.concat(field)
      rows[#rows + 1] = row
      row, field, any = {}, {}, false
    else
      field[#field + 1] = c; any = true
    end
    i = i + 1
  end
  if quoted then return nil, "unterminated quoted field" end
  if any or #field > 0 then
    row[#row + 1] = table.concat(field)
    rows[#rows + 1] = row
  end
  return rows
end

local csv_cache = {}

-- Returns {path=, shown=, header={name->index}, names={...}, rows={{col->value}}}.
local function load_csv(path, shown)
  if csv_cache[path] then return csv_cache[path] end
  local text = read_file(path)
  if not text then fail("%s: file not found (%s)", shown, path) end
  local raw, err = parse_csv(text)
  if not raw then fail("%s: %s", shown, err) end
  if #raw < 2 then fail("%s: no data rows (%s)", shown, path) end
  local names, header = raw[1], {}
  for k, name in ipairs(names) do header[name] = k end
  local rows = {}
  for r = 2, #raw do
    if not (#raw[r] == 1 and raw[r][1] == "") then
      if #raw[r] ~= #names then
        fail("%s: line %d has %d fields, the header has %d", shown, r, #raw[r], #names)
      end
      local rec = {}
      for k, name in ipairs(names) do rec[name] = raw[r][k] end
      rows[#rows + 1] = rec
    end
  end
  local t = {path = path, shown = shown, header = header, names = names, rows = rows}
  csv_cache[path] = t
  return t
end

-- Flat JSON object of string values (what tlab::to_json writes); anything else is an error.
local function parse_flat_json(text, shown)
  local out, keys, i = {}, {}, 1
  local function ws() i = text:find("[^ \t\r\n]", i) or (#text + 1) end
  local function bad(what) fail("%s: %s at byte %d", shown, what, i) end
  local function str()
    if text:sub(i, i) ~= '"' then bad("expected a string") end
    i = i + 1
    local buf = {}
    while true do
      local c = text:sub(i, i)
      if c == "" then bad("unterminated string") end
      if c == '"' then i = i + 1; break end
      if c == "\\" then
        local e = text:sub(i + 1, i + 1)
        local simple = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
        if simple[e] then
          buf[#buf + 1] = simple[e]; i = i + 2
        elseif e == "u" then
          local hex = text:sub(i + 2, i + 5)
          if not hex:match("^%x%x%x%x$") then bad("bad \\u escape") end
          buf[#buf + 1] = utf8.char(tonumber(hex, 16)); i = i + 6
        else
          bad("bad escape")
        end
      else
        buf[#buf + 1] = c; i = i + 1
      end
    end
    return table.concat(buf)
  end
  ws()
  if text:sub(i, i) ~= "{" then bad("expected {") end
  i = i + 1; ws()
  if text:sub(i, i) == "}" then return out, keys end
  while true do
    ws(); local k = str(); ws()
    if text:sub(i, i) ~= ":" then bad("expected :") end
    i = i + 1; ws()
    local v = str(); ws()
    if out[k] == nil then keys[#keys + 1] = k end
    out[k] = v
    local c = text:sub(i, i)
    i = i + 1
    if c == "}" then break end
    if c ~= "," then i = i - 1; bad("expected , or }") end
  end
  return out, keys
end

-- -------------------------------------------------------------------------------- selection

local function glob_to_pattern(g)
  local p = g:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. p .. "$"
end

local function split(s, sep)
  local out = {}
  for piece in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = piece end
  return out
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- "a=b,c~d*" -> list of {col, op, values}
local function parse_where(where, shown)
  local conds = {}
  if where == nil or trim(where) == "" then return conds end
  for _, c in ipairs(split(where, ",")) do
    c = trim(c)
    local col, op, val
    for _, o in ipairs({"!=", "!~", "<=", ">=", "=", "~", "<", ">"}) do
      local a, b = c:find(o, 1, true)
      if a then
        local before = c:sub(1, a - 1)
        if before:match("^[%w_]+$") then col, op, val = before, o, c:sub(b + 1); break end
      end
    end
    if not col then fail("%s: cannot read condition '%s' in where=\"%s\"", shown, c, where) end
    local cond = {col = col, op = op, values = split(val, "|")}
    if op == "<" or op == ">" or op == "<=" or op == ">=" then
      cond.num = tonumber(val)
      if not cond.num then fail("%s: '%s' needs a number in where=\"%s\"", shown, c, where) end
    end
    conds[#conds + 1] = cond
  end
  return conds
end

local function holds(cond, v)
  local op = cond.op
  if cond.num then
    local x = tonumber(v)
    if not x then return false end
    if op == "<" then return x < cond.num elseif op == "<=" then return x <= cond.num
    elseif op == ">" then return x > cond.num else return x >= cond.num end
  end
  local any = false
  for _, alt in ipairs(cond.values) do
    if op == "=" or op == "!=" then any = any or v == alt
    else any = any or v:match(glob_to_pattern(alt)) ~= nil end
  end
  if op == "!=" or op == "!~" then return not any end
  return any
end

-- `what` names the file and the selector that wanted the column.
local function need_column(csv, col, what)
  if not csv.header[col] then
    fail("%s: no column '%s'; the file's columns are: %s", what, col, table.concat(csv.names, ","))
  end
end

-- The rows that match `where`, possibly none (the columns it names must exist).
local function matching_rows(csv, where)
  local conds = parse_where(where, csv.shown)
  for _, c in ipairs(conds) do need_column(csv, c.col, csv.shown .. ' where="' .. where .. '"') end
  local out = {}
  for _, r in ipairs(csv.rows) do
    local ok = true
    for _, c in ipairs(conds) do
      if not holds(c, r[c.col]) then ok = false; break end
    end
    if ok then out[#out + 1] = r end
  end
  return out
end

local function select_rows(csv, where)
  local out = matching_rows(csv, where)
  if #out == 0 then fail('%s: no row matches where="%s"', csv.shown, where or "") end
  return out
end

-- "max:rows,max:cols": each step keeps the rows at the extreme of its column among those left.
-- Rows whose column is not a number drop out; none left is an error.
-- PICK's steps as {how, col}, each a max or min of a column the file has.
local function pick_steps(csv, pick, msg)
  local steps = {}
  if not pick or trim(pick) == "" then return steps end
  for _, step in ipairs(split(pick, ",")) do
    local how, col = trim(step):match("^(%a+):([%w_]+)$")
    if not (how == "max" or how == "min") then fail("%s: pick=\"%s\" is not max:COL or min:COL (comma-separated)", msg, pick) end
    need_column(csv, col, msg)
    steps[#steps + 1] = {how, col}
  end
  return steps
end

local function apply_pick(csv, rows, pick, msg)
  for _, step in ipairs(pick_steps(csv, pick, msg)) do
    local how, col = step[1], step[2]
    local best
    for _, r in ipairs(rows) do
      local x = tonumber(r[col])
      if x and (not best or (how == "max" and x > best) or (how == "min" and x < best)) then best = x end
    end
    if not best then fail("%s: no numeric %s to pick", msg, col) end
    local kept = {}
    for _, r in ipairs(rows) do
      if tonumber(r[col]) == best then kept[#kept + 1] = r end
    end
    rows = kept
  end
  return rows
end

-- value="=EXPR": Lua arithmetic over the row's columns (by name, as numbers). A name that is
-- not a column, or a column that is not a number in this row, is an error.
-- Runs EXPR with each name it reads looked up by value_of(name), once that name is known to be
-- a column; pcall's results, but for this filter's own errors, which stop the report.
local function run_expr(csv, expr, msg, value_of)
  local env = setmetatable({}, {__index = function(_, name)
    if name == "math" then return math end
    if not csv.header[name] then
      fail("%s: value=\"=%s\": no column '%s'; the file's columns are: %s", msg, expr, name, table.concat(csv.names, ","))
    end
    return value_of(name)
  end})
  local chunk, err = load("return " .. expr, "value", "t", env)
  if not chunk then fail("%s: cannot read value=\"=%s\": %s", msg, expr, err) end
  local ok, v = pcall(chunk)
  if not ok and tostring(v):match("^csv%-data: ") then error(v, 0) end
  return ok, v
end

local function eval_expr(csv, row, expr, msg)
  local ok, v = run_expr(csv, expr, msg, function(name)
    local x = tonumber(row[name])
    if not x then fail("%s: value=\"=%s\": column %s is '%s', not a number", msg, expr, name, row[name]) end
    return x
  end)
  if not ok then fail("%s: value=\"=%s\" failed: %s", msg, expr, tostring(v)) end
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    fail("%s: value=\"=%s\" gives %s, not a finite number", msg, expr, tostring(v))
  end
  return tostring(v)
end

-- --------------------------------------------------------------------------------- formats

-- Returns a list of inlines. NA (the schema's "no value") is shown as NA, never as a blank.
local function format_value(v, fmt, where_msg)
  fmt = fmt or "%s"
  if v == "NA" then return {pandoc.Str("NA")} end
  if fmt == "pow2" then
    local x = tonumber(v)
    if x and x >= 1 and math.floor(x) == x then
      local k = math.floor(math.log(x, 2) + 0.5)
      if 2 ^ k == x then return {pandoc.Str("2"), pandoc.Superscript{pandoc.Str(tostring(k))}} end
    end
    return {pandoc.Str(v)}
  end
  local directive = fmt:gsub("%%%%", ""):match("%%[-+ #0]*%d*%.?%d*(%a)")
  if not directive then fail("format \"%s\" has no %% directive (%s)", fmt, where_msg) end
  local arg = v
  if directive ~= "s" then
    arg = tonumber(v)
    if arg == nil then fail("%s: value '%s' is not a number for format \"%s\"", where_msg, v, fmt) end
    if directive == "d" or directive == "i" or directive == "x" then
      arg = math.tointeger(arg) or math.floor(arg + 0.5)
    end
  end
  local ok, s = pcall(string.format, fmt, arg)
  if not ok then fail("%s: format \"%s\" failed on '%s': %s", where_msg, fmt, v, s) end
  return {pandoc.Str(s)}
end

local function markdown_inlines(text)
  if not text or text == "" then return {} end
  local doc = pandoc.read(text, "markdown")
  if #doc.blocks == 0 then return {} end
  return doc.blocks[1].content
end

local function cell(inlines) return {pandoc.Plain(inlines)} end

-- ----------------------------------------------------------------------------------- context

local meta = {}       -- tlab-root, figures-dir, results-dir, this-host (strings)
local experiments = {} -- {name, dir, origin} in document order

local function relpath(p)
  local root = meta.root
  if root and p:sub(1, #root + 1) == root .. "/" then return p:sub(#root + 2) end
  return p
end

-- ctx: nil outside an experiment, else {name=, dir=, origin=}
local function resolve_src(src, ctx, what)
  if not src or src == "" then fail("%s without src=", what) end
  if src:find("/", 1, true) then
    return meta.root .. "/" .. src, src
  end
  if not ctx then
    fail("%s src=\"%s\": a bare file name needs an experiment section (outside one, write data/published/...)", what, src)
  end
  return ctx.dir .. "/" .. src, src .. " (from " .. relpath(ctx.dir) .. ")"
end

local function env_of(dir, name)
  local files = name and {name .. ".env.json", "env.json"} or {"env.json"}
  for _, file in ipairs(files) do
    local p = dir .. "/" .. file
    local text = read_file(p)
    if text then
      local env, keys = parse_flat_json(text, relpath(p))
      return env, keys, p
    end
  end
  return nil
end

-- --------------------------------------------------------------------------------- elements

-- Whether a lookup that finds no row (or no file) may be marked instead of stopping the
-- report: only in a section built from this report's own run, and only in that run's own
-- files (a bare name; a path with a slash is committed data, which must hold what the text
-- quotes). Counts it for the section's note.
local function may_lack(ctx, src)
  if not ctx or ctx.origin ~= "results" or (src or ""):find("/", 1, true) then return false end
  ctx.lacking = (ctx.lacking or 0) + 1
  return true
end

-- What a lookup names must exist even where the run holds no row for it: a column in a
-- value expression, a pick or a format with a typo still stops the report.
local function check_names(csv, a, msg)
  local expr = a.value and a.value:match("^=(.+)$")
  if expr then run_expr(csv, expr, msg, function() return 1 end) end
  pick_steps(csv, a.pick, msg)
  for _, k in ipairs({"format", "rows-format", "cols-format"}) do
    if a[k] then format_value("0", a[k], msg) end
  end
end

local NOT_MEASURED = "not measured"

local function not_measured_span(a, class)
  return pandoc.Span({pandoc.Emph{pandoc.Str(NOT_MEASURED)}},
    pandoc.Attr("", {class, "not-measured"}, {{"data-csv-src", a.src}, {"data-csv-where", a.where or ""}}))
end

local function csv_value(el, ctx)
  local a = el.attributes
  local path, shown = resolve_src(a.src, ctx, "csv-value")
  if not a.value then fail("csv-value in %s: no value= column", shown) end
  if not exists(path) and may_lack(ctx, a.src) then return not_measured_span(a, "csv-value") end
  local csv = load_csv(path, shown)
  local msg = string.format('%s where="%s"', shown, a.where or "")
  local expr = a.value:match("^=(.+)$")
  if not expr then need_column(csv, a.value, msg) end
  local rows = matching_rows(csv, a.where)
  if #rows == 0 then
    check_names(csv, a, msg)
    if may_lack(ctx, a.src) then return not_measured_span(a, "csv-value") end
    select_rows(csv, a.where)  -- stops the report, naming the selector
  end
  if a.pick then rows = {apply_pick(csv, rows, a.pick, msg)[1]} end
  if #rows ~= 1 then
    fail("%s: %d rows match, a csv-value needs exactly one (narrow where= or add pick=)", msg, #rows)
  end
  local v = expr and eval_expr(csv, rows[1], expr, msg) or rows[1][a.value]
  return pandoc.Span(format_value(v, a.format, msg),
    pandoc.Attr("", {"csv-value"}, {{"data-csv-src", a.src}, {"data-csv-where", a.where or ""}}))
end

-- Counting is the one lookup that may legitimately find nothing (no configuration hit the
-- budget, say); the file and every column named must still exist.
local function csv_count(el, ctx)
  local a = el.attributes
  local path, shown = resolve_src(a.src, ctx, "csv-count")
  if not exists(path) and may_lack(ctx, a.src) then return not_measured_span(a, "csv-count") end
  local csv = load_csv(path, shown)
  local matched = matching_rows(csv, a.where)
  if a.pick and #matched > 0 then
    matched = apply_pick(csv, matched, a.pick, string.format('%s where="%s"', shown, a.where or ""))
  end
  local n = #matched
  return pandoc.Span({pandoc.Str(tostring(n))},
    pandoc.Attr("", {"csv-count"}, {{"data-csv-src", a.src}, {"data-csv-where", a.where or ""}}))
end

-- A field of the section's environment record (cache sizes, CPU model): machine facts the
-- discussion may need, read from the same env.json the provenance box names.
local function env_value(el, ctx)
  local key = el.attributes.key
  if not ctx then fail("env-value key=\"%s\" must sit inside an experiment section", tostring(key)) end
  local env, _, envpath = env_of(ctx.dir, ctx.name)
  if not env then fail("%s: no %s.env.json or env.json for env-value", relpath(ctx.dir), ctx.name) end
  if not key or key == "" then fail("%s: env-value without key=", relpath(envpath)) end
  -- A machine fact no source gave (no sysfs cache folder in a VM, say) is said to be missing:
  -- it must never stop a report, and never be shown as a blank.
  if env[key] == nil or env[key] == "" then
    return pandoc.Span({pandoc.Emph{pandoc.Str(NOT_RECORDED)}},
      pandoc.Attr("", {"env-value", "not-recorded"}, {{"data-env-key", key}}))
  end
  return pandoc.Span({pandoc.Str(env[key])}, pandoc.Attr("", {"env-value"}, {{"data-env-key", key}}))
end

local function is_number(s) return tonumber(s) ~= nil end

-- A pivot key: a column's value, or a template "{rows}x{cols}"; then, with a pattern, its
-- first capture (or whole match). A row whose key does not match the pattern is an error.
local function key_maker(a, which, csv, msg)
  local spec, pat = a[which], a[which .. "-match"]
  local get
  if spec:find("{", 1, true) then
    for col in spec:gmatch("{([^}]*)}") do need_column(csv, col, msg) end
    get = function(r) return (spec:gsub("{([^}]*)}", function(col) return r[col] end)) end
  else
    need_column(csv, spec, msg)
    get = function(r) return r[spec] end
  end
  if not pat then return get end
  return function(r)
    local v = get(r)
    local a1, b1, cap = v:find(pat)
    if not a1 then fail("%s: %s=\"%s\" is '%s', which does not match %s-match=\"%s\"", msg, which, spec, v, which, pat) end
    return cap or v:sub(a1, b1)
  end
end

local function pivot_table(a, csv, rows, msg)
  for _, k in ipairs({"rows", "cols", "value"}) do
    if not a[k] then fail("csv-table in %s: pivot needs rows=, cols= and value=", msg) end
  end
  local expr = a.value:match("^=(.+)$")  -- value="=EXPR": computed from the row's columns
  if not expr then need_column(csv, a.value, msg) end
  local rkey, ckey = key_maker(a, "rows", csv, msg), key_maker(a, "cols", csv, msg)
  local rkeys, ckeys, seen_r, seen_c, cells = {}, {}, {}, {}, {}
  for _, r in ipairs(rows) do
    local rk, ck = rkey(r), ckey(r)
    if not seen_r[rk] then seen_r[rk] = true; rkeys[#rkeys + 1] = rk end
    if not seen_c[ck] then seen_c[ck] = true; ckeys[#ckeys + 1] = ck end
    local key = rk .. "\0" .. ck
    if cells[key] ~= nil then
      fail("%s: two rows for %s=%s, %s=%s; narrow where=", msg, a.rows, rk, a.cols, ck)
    end
    cells[key] = expr and eval_expr(csv, r, expr, msg) or r[a.value]
  end
  -- Numbers sort by value (sizes); names keep the CSV's order (the experiment's own order).
  local function order(keys)
    local numeric = true
    for _, k in ipairs(keys) do numeric = numeric and is_number(k) end
    if numeric then table.sort(keys, function(x, y) return tonumber(x) < tonumber(y) end) end
  end
  order(rkeys); order(ckeys)
  local headers = {cell(a.corner and markdown_inlines(a.corner) or {pandoc.Str(a.rows)})}
  local aligns, widths = {pandoc.AlignLeft}, {0}
  for _, ck in ipairs(ckeys) do
    headers[#headers + 1] = cell(format_value(ck, a["cols-format"], msg))
    aligns[#aligns + 1] = pandoc.AlignRight
    widths[#widths + 1] = 0
  end
  local body = {}
  for _, rk in ipairs(rkeys) do
    local line = {cell(format_value(rk, a["rows-format"], msg))}
    for _, ck in ipairs(ckeys) do
      local v = cells[rk .. "\0" .. ck]
      -- A configuration that was not run is a dash, not a blank: the reader sees it is absent.
      line[#line + 1] = cell(v and format_value(v, a.format, msg) or {pandoc.Str("–")})
    end
    body[#body + 1] = line
  end
  return headers, aligns, widths, body
end

local function list_table(a, csv, rows, msg)
  local specs = {}
  for _, s in ipairs(split(a.columns, ",")) do
    local col, fmt = trim(s):match("^([%w_]+):?(.*)$")
    if not col then fail("csv-table in %s: cannot read column '%s'", msg, s) end
    need_column(csv, col, msg)
    specs[#specs + 1] = {col = col, fmt = fmt ~= "" and fmt or nil}
  end
  local names = a.headers and split(a.headers, ",") or nil
  if names and #names ~= #specs then
    fail("csv-table in %s: %d headers for %d columns", msg, #names, #specs)
  end
  local headers, aligns, widths, body = {}, {}, {}, {}
  for k, s in ipairs(specs) do
    headers[k] = cell(names and markdown_inlines(trim(names[k])) or {pandoc.Str(s.col)})
    aligns[k] = (s.fmt and s.fmt ~= "%s") and pandoc.AlignRight or pandoc.AlignLeft
    widths[k] = 0
  end
  for _, r in ipairs(rows) do
    local line = {}
    for k, s in ipairs(specs) do line[k] = cell(format_value(r[s.col], s.fmt, msg)) end
    body[#body + 1] = line
  end
  return headers, aligns, widths, body
end

local function csv_table(el, ctx)
  local a = el.attributes
  local path, shown = resolve_src(a.src, ctx, "csv-table")
  local caption = markdown_inlines(a.caption)
  -- The div's own text, when given, is the caption (it may hold Markdown and csv-values).
  if #caption == 0 and #el.content > 0 and el.content[1].content then caption = el.content[1].content end
  -- Where the run lacks the table, its caption stays and the table reads as not measured.
  local function lacking()
    return pandoc.Div({pandoc.Para(caption), pandoc.Para{not_measured_span(a, "csv-table")}},
      pandoc.Attr("", {"csv-table"}))
  end
  if not exists(path) and may_lack(ctx, a.src) then return lacking() end
  local csv = load_csv(path, shown)
  local msg = string.format('%s where="%s"', shown, a.where or "")
  local rows = matching_rows(csv, a.where)
  if #rows == 0 then
    -- Every column, pick and format the table names is checked on no rows first.
    if a.columns then list_table(a, csv, {}, msg) else pivot_table(a, csv, {}, msg) end
    check_names(csv, a, msg)
    if may_lack(ctx, a.src) then return lacking() end
    select_rows(csv, a.where)  -- stops the report, naming the selector
  end
  rows = apply_pick(csv, rows, a.pick, msg)
  local headers, aligns, widths, body
  if a.columns then
    headers, aligns, widths, body = list_table(a, csv, rows, msg)
  else
    headers, aligns, widths, body = pivot_table(a, csv, rows, msg)
  end
  local t = pandoc.utils.from_simple_table(pandoc.SimpleTable(caption, aligns, widths, headers, body))
  return pandoc.Div({t}, pandoc.Attr("", {"csv-table"}, {{"data-csv-src", a.src}, {"data-csv-where", a.where or ""}}))
end

local function short_commit(env)
  local c = env.git_commit or NOT_RECORDED
  if c:match("^%x+$") then c = c:sub(1, 10) end
  if env.git_dirty == "yes" then c = c .. " with uncommitted changes" end
  return c
end


local function has_gpu(env) return env.gpu and env.gpu ~= "" and not env.gpu:match("^none") end

-- Provenance text is assembled as Markdown and parsed, so spacing and punctuation stay natural.
local function md_code(s)
  local longest = 0
  for run in s:gmatch("`+") do longest = math.max(longest, #run) end
  local fence = string.rep("`", longest + 1)
  return fence .. " " .. s .. " " .. fence
end

local function md_text(s) return (s:gsub("([\\`*_%[%]<>#$^~|])", "\\%1")) end

local function md_blocks(text) return pandoc.read(text, "markdown").blocks end

-- What a run's own results may lack (see the header): the options on its command line that
-- narrow it, or "" where none does (configurations the program skipped on this machine).
local NARROWING = {"--quick", "--sizes", "--types", "--variants"}
local function narrowing_of(ctx)
  local env = env_of(ctx.dir, ctx.name)
  local cmd = " " .. ((env and env.command_line) or "") .. " "
  local found = {}
  for _, o in ipairs(NARROWING) do
    if cmd:find(" " .. o .. " ", 1, true) then found[#found + 1] = md_code(o) end
  end
  return table.concat(found, ", ")
end

-- The note under the data box of a section whose run lacked rows its text quotes.
local function lacking_note(ctx)
  local options = narrowing_of(ctx)
  local what = ctx.lacking == 1 and "1 of the values and tables" or (ctx.lacking .. " of the values and tables")
  local why = options ~= ""
    and ("Its command line narrows it (" .. options .. "); a run without " ..
      (options:find(",", 1, true) and "those options" or "that option") .. ", or a reference folder, holds them.")
    or "The program skipped those configurations on this machine (it says why as it runs); a reference folder holds them."
  local s = string.format("**Not measured in this run:** this run holds no row for %s this section quotes " ..
    "(they read *%s*). %s", what, NOT_MEASURED, why)
  return pandoc.Div(md_blocks(s), pandoc.Attr("", {"data-lacking"}))
end

-- What in a run's environment record makes its numbers suspect: a machine already busy
-- when the run started, or a GPU whose clocks were held back (nvidia-smi's clock event
-- reasons other than "idle", read at the end of the run).
local function run_warnings(env)
  local out = {}
  local load, cores = tonumber(env.load_average_1min_at_start or ""), tonumber(env.cpu_logical_cores or "")
  if load and cores and load > 0.5 * cores then
    out[#out + 1] = string.format("the machine was busy when this run started (1-minute load average %s on %d logical " ..
      "cores); CPU timings may be slower than the machine can do.", env.load_average_1min_at_start, cores)
  end
  local reasons = env.gpu_smi_clock_event_reasons
  local bits = reasons and tonumber((reasons:gsub("^0x", "")), 16)
  if bits and (bits & ~1) ~= 0 then
    out[#out + 1] = string.format("the GPU reported clock event reasons %s when this run ended (power, thermal or " ..
      "applications limits), so its clocks may have been held back; compare gpu_smi_clocks_sm with gpu_smi_clocks_max_sm " ..
      "in the environment record.", md_code(reasons))
  end
  return out
end

-- "commit `abc`", or for a copy that was no git checkout the project version it recorded.
local function source_of(env)
  local c = env.git_commit
  if c and c:match("^%x+$") then return "commit " .. md_code(short_commit(env)) end
  local v = env.project_version and ("transpose-lab " .. md_text(env.project_version)) or "transpose-lab"
  return v .. " (" .. md_text(c or ("commit " .. NOT_RECORDED)) .. ")"
end

local function provenance(ctx)
  if not ctx then fail("a provenance block must sit inside an experiment section") end
  local env, _, envpath = env_of(ctx.dir, ctx.name)
  if not env then fail("%s: no %s.env.json or env.json for the provenance block", relpath(ctx.dir), ctx.name) end
  local device = md_text(env.cpu_model or "CPU " .. NOT_RECORDED)
  if has_gpu(env) then device = md_text(env.gpu) .. ", " .. device end
  if env.cuda_driver then device = device .. ", CUDA driver " .. md_text(env.cuda_driver) end
  local when = md_text(env.date or "date " .. NOT_RECORDED) .. ", " .. source_of(env)
  local s
  if ctx.origin == "reference" then
    local lack = md_code(ctx.name .. ".csv") .. " is not in the results folder"
    local renv = meta.results_dir and env_of(meta.results_dir, nil)
    local gpu_rows = false
    for _, r in ipairs(load_csv(ctx.dir .. "/" .. ctx.name .. ".csv", ctx.name .. ".csv").rows) do
      gpu_rows = gpu_rows or r.backend == "gpu" or r.case ~= nil  -- 08's host paths all use the GPU
    end
    -- "No GPU" is the reason only for an experiment that needs one and a run from this machine.
    if gpu_rows and renv and renv.host == meta.host and not has_gpu(renv) then
      lack = "this machine has no GPU (" .. md_text((renv.gpu or ""):gsub("^none %((.*)%)$", "%1")) .. ")"
    end
    -- Why this reference folder (build-report's choice attribute).
    local choice, from = ctx.choice or "only", md_code(relpath(ctx.dir))
    local lacking = choice:match("^named%-lacks:(.*)$")
    local n = choice:match("^newest:(%d+)$")
    if choice == "named" then
      from = from .. ", the reference folder this report was asked for"
    elseif lacking then
      from = from .. " (the reference folder this report was asked for, " .. md_code(relpath(lacking)) ..
        ", does not hold this experiment)"
    elseif n then
      from = from .. ", the newest run of the " .. n .. " reference folders that hold this experiment " ..
        "(`REFERENCE=`*folder* picks another)"
    end
    if meta.results_dir and choice == "named" and ctx.dir == meta.results_dir then
      s = string.format("**Data:** committed reference results from %s, measured on %s, %s.", from, device, when)
    else
      s = string.format("**Data:** %s: committed reference results from %s, measured on %s, %s.",
        lack, from, device, when)
    end
  else
    local on = env.host == meta.host and "this machine" or ("host " .. md_text(env.host or "?"))
    s = string.format("**Data:** measured on %s (%s), %s; results folder %s.", on, device, when, md_code(relpath(ctx.dir)))
  end
  if env.command_line then s = s .. " Command: " .. md_code(env.command_line) .. "." end
  s = s .. " Environment record: " .. md_code(relpath(envpath)) .. "."
  for _, w in ipairs(run_warnings(env)) do s = s .. "\n\n**Warning:** " .. w end
  return pandoc.Div(md_blocks(s), pandoc.Attr("", {"provenance"}))
end

local function env_table()
  local folders, seen = {}, {}
  for _, e in ipairs(experiments) do
    if not seen[e.dir] then seen[e.dir] = true; folders[#folders + 1] = e end
  end
  if #folders == 0 then fail("env-table: the report uses no results folder") end
  local envs, keys, have = {}, {}, {}
  for k, e in ipairs(folders) do
    local env, ks = env_of(e.dir, nil)
    if not env then env, ks = env_of(e.dir, e.name) end
    if not env then fail("env-table: no env.json in %s", relpath(e.dir)) end
    envs[k] = env
    for _, key in ipairs(ks) do
      -- The command differs per experiment; each section's provenance names its own.
      if not have[key] and key ~= "command_line" then have[key] = true; keys[#keys + 1] = key end
    end
  end
  local headers, aligns, widths = {cell{pandoc.Str("field")}}, {pandoc.AlignLeft}, {0}
  for k, e in ipairs(folders) do
    local users = {}
    for _, x in ipairs(experiments) do if x.dir == e.dir then users[#users + 1] = x.name:sub(1, 2) end end
    headers[#headers + 1] = md_blocks(md_code(relpath(e.dir)) .. " (" .. e.origin .. "; experiments " ..
      table.concat(users, ", ") .. ")")
    aligns[#aligns + 1], widths[#widths + 1] = pandoc.AlignLeft, 0
  end
  local body = {}
  for _, key in ipairs(keys) do
    local line = {cell{pandoc.Code(key)}}
    for k = 1, #folders do
      local v = envs[k][key]
      line[#line + 1] = cell(v and v ~= "" and {pandoc.Str(v)} or {pandoc.Emph{pandoc.Str(NOT_RECORDED)}})
    end
    body[#body + 1] = line
  end
  local t = pandoc.utils.from_simple_table(pandoc.SimpleTable(
    {pandoc.Str("Environment of each results folder used (newest run's env.json)")}, aligns, widths, headers, body))
  return pandoc.Div({t}, pandoc.Attr("", {"env-table"}))
end

local function image(el)
  local rest = el.src:match("^figures/(.+)$")
  if not rest then return nil end
  local p = meta.figures .. "/" .. rest
  if not exists(p) then
    fail("figure %s was not produced (looked for %s); does the section's plot.gp write it?", el.src, p)
  end
  el.src = p
  return el
end

-- ::: {.if-data src="FILE" [where="SEL"] absent="text"} keeps its content when FILE exists in
-- the section's data folder (and, with where=, has a row that matches), else becomes one
-- paragraph saying the data is absent (for data that only some machines or builds can
-- produce, such as hardware counters or an optional library's rows). Runs before the other
-- handlers, so the tables inside never look for a file or a row that is not there.
local function if_data_filter(ctx)
  return {
    Div = function(el)
      if not el.classes:includes("if-data") then return nil end
      local a = el.attributes
      local path, shown = resolve_src(a.src, ctx, "if-data")
      local missing = shown .. " is absent"
      if exists(path) then
        if not a.where or #matching_rows(load_csv(path, shown), a.where) > 0 then return pandoc.Div(el.content) end
        missing = "no row of " .. shown .. " matches " .. md_code('where="' .. a.where .. '"')
      end
      local why = a.absent or "not measured in this run"
      return pandoc.Div({pandoc.Para(markdown_inlines(why .. " (" .. missing .. ")."))}, pandoc.Attr("", {"data-absent"}))
    end,
  }
end

local function filter_for(ctx)
  return {
    Span = function(el)
      if el.classes:includes("csv-value") then return csv_value(el, ctx) end
      if el.classes:includes("csv-count") then return csv_count(el, ctx) end
      if el.classes:includes("env-value") then return env_value(el, ctx) end
    end,
    Div = function(el)
      if el.classes:includes("csv-table") then return csv_table(el, ctx) end
      if el.classes:includes("provenance") then return provenance(ctx) end
      if el.classes:includes("env-table") then return env_table() end
      if el.classes:includes("experiment") then fail("experiment sections cannot nest") end
    end,
    Image = image,
  }
end

function Pandoc(doc)
  local function m(k)
    local v = doc.meta[k]
    return v and stringify(v) or nil
  end
  meta = {root = m("tlab-root"), figures = m("figures-dir"), results_dir = m("results-dir"), host = m("this-host")}
  if not meta.root or not meta.figures then fail("metadata tlab-root and figures-dir are required (set by scripts/build-report)") end
  experiments = {}
  for _, b in ipairs(doc.blocks) do
    if b.t == "Div" and b.classes:includes("experiment") then
      local a = b.attributes
      if not (a.name and a["data-dir"] and a.origin) then fail("experiment div needs name, data-dir and origin") end
      experiments[#experiments + 1] = {name = a.name, dir = a["data-dir"], origin = a.origin, choice = a.choice}
    end
  end
  local out, k = {}, 0
  local pending = {}
  local function flush()
    if #pending > 0 then
      for _, x in ipairs(pandoc.walk_block(pandoc.Div(pending), filter_for(nil)).content) do out[#out + 1] = x end
      pending = {}
    end
  end
  for _, b in ipairs(doc.blocks) do
    if b.t == "Div" and b.classes:includes("experiment") then
      flush()
      k = k + 1
      local ctx = experiments[k]
      local present = pandoc.walk_block(pandoc.Div(b.content), if_data_filter(ctx))
      local blocks = pandoc.walk_block(present, filter_for(ctx)).content
      -- The note goes under the data box (else under the section's heading, else first).
      local note_at = nil
      if ctx.lacking then
        for i, x in ipairs(blocks) do
          if x.t == "Div" and x.classes:includes("provenance") then note_at = i; break end
          if not note_at and x.t == "Header" then note_at = i end
        end
      end
      if ctx.lacking and not note_at then out[#out + 1] = lacking_note(ctx) end
      for i, x in ipairs(blocks) do
        out[#out + 1] = x
        if ctx.lacking and i == note_at then out[#out + 1] = lacking_note(ctx) end
      end
    else
      pending[#pending + 1] = b
    end
  end
  flush()
  return pandoc.Pandoc(out, doc.meta)
end
