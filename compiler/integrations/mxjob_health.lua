-- Argo CD health check for kubeflow.org MXJob (argocd-cm key resource.customizations.health.kubeflow.org_MXJob).
-- It reads the status `mxjob reconcile` writes: conditions Created, Running, Restarting, Suspended, Succeeded,
-- Failed and Refused (a job over the reconciler's size bounds; newest last), and replicaStatuses with active/succeeded/failed counts per replica type.
-- Argo CD runs health scripts in gopher-lua (Lua 5.1) with only the package, base and table libraries and a
-- safe os (time, date) open (util/lua/lua.go, runLuaWithResourceActionParameters), so this script uses no
-- string or math functions.
local hs = {status = "Progressing", message = "Waiting for the MXJob reconciler to report a status"}
local status = obj.status
if status == nil then
  return hs
end
-- A spec the reconciler has not seen yet (observedGeneration behind metadata.generation): the status describes an
-- older spec, so wait, as Flux does before any expression (fluxcd/pkg runtime/cel, StatusEvaluator.Evaluate).
local generation = nil
if obj.metadata ~= nil then
  generation = obj.metadata.generation
end
if status.observedGeneration ~= nil and generation ~= nil and status.observedGeneration ~= generation then
  hs.message = "Waiting for the MXJob reconciler to observe generation " .. generation
  return hs
end

local current = {}
local newest = nil
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.status == "True" then
      current[condition.type] = condition
      newest = condition
    end
  end
end

local function say(condition, fallback)
  if condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  return fallback
end

-- The finished and the held states, most severe first: Failed wins over anything else.
local settled = {
  {condition = "Failed", health = "Degraded", fallback = "MXJob failed"},
  {condition = "Refused", health = "Degraded", fallback = "MXJob refused by the reconciler"},
  {condition = "Succeeded", health = "Healthy", fallback = "MXJob succeeded"},
  {condition = "Suspended", health = "Suspended", fallback = "MXJob is suspended"},
}
for _, state in ipairs(settled) do
  local condition = current[state.condition]
  if condition ~= nil then
    hs.status = state.health
    hs.message = say(condition, state.fallback)
    return hs
  end
end

-- Progressing: the newest condition's message, then the pods per replica type (active of expected).
local expected = {}
local names = {}
local specs = {}
if obj.spec ~= nil and obj.spec.mxReplicaSpecs ~= nil then
  specs = obj.spec.mxReplicaSpecs
end
for name, spec in pairs(specs) do
  names[#names + 1] = name
  expected[name] = spec.replicas or 1
end
table.sort(names)
local counts = status.replicaStatuses or {}
local parts = {}
for _, name in ipairs(names) do
  local count = counts[name] or {}
  local part = name .. " " .. (count.active or 0) .. "/" .. expected[name] .. " active"
  if (count.succeeded or 0) > 0 then
    part = part .. ", " .. count.succeeded .. " succeeded"
  end
  if (count.failed or 0) > 0 then
    part = part .. ", " .. count.failed .. " failed"
  end
  parts[#parts + 1] = part
end
if newest ~= nil then
  hs.message = say(newest, newest.type)
end
if #parts > 0 then
  hs.message = hs.message .. " (" .. table.concat(parts, "; ") .. ")"
end
return hs
