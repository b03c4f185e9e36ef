-- Drives Neovim's own LSP client (0.7+: vim.lsp.start_client) against `tasks-server lsp`:
-- opens $LSP_FILE, records the diagnostics it shows, makes a dependency dangle in the
-- unsaved buffer, records them again, asks for completion inside `depends_on: [`, and
-- writes what it saw as JSON to $LSP_OUT. Every wait is bounded (vim.wait with a timeout).
local env = vim.env
local out = { published = 0 }
local published = 0

vim.cmd('edit ' .. vim.fn.fnameescape(env.LSP_FILE))
local buf = vim.api.nvim_get_current_buf()
local on_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
local id = vim.lsp.start_client({
  name = 'tasks-server',
  cmd = { env.LSP_PYTHON, '-m', 'tasks_server', 'lsp', '--root', env.LSP_ROOT },
  root_dir = env.LSP_ROOT,
  handlers = {
    ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
      published = published + 1
      on_publish(err, result, ctx, config)
    end,
  },
})
vim.lsp.buf_attach_client(buf, id)

local function messages()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, { line = d.lnum, col = d.col, message = d.message })
  end
  return found
end

out.opened = vim.wait(60000, function() return published >= 1 end, 20)
out.on_open = messages()

local line = tonumber(env.LSP_LINE)
vim.api.nvim_buf_set_lines(buf, line, line, false, { 'depends_on: [nvim-ghost]' })
out.changed = vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
out.on_change = messages()

vim.api.nvim_buf_set_lines(buf, line, line + 1, false, { 'depends_on: [' .. env.LSP_PREFIX })
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = line, character = #('depends_on: [' .. env.LSP_PREFIX) },
}
local answers = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 60000) or {}
out.completion = {}
for _, answer in pairs(answers) do
  local items = (answer.result or {}).items or answer.result or {}
  for _, item in ipairs(items) do table.insert(out.completion, item.label) end
end

local file = io.open(env.LSP_OUT, 'w')
file:write(vim.fn.json_encode(out))
file:close()
vim.lsp.stop_client(id)
vim.cmd('qa!')
