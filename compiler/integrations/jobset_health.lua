-- Argo CD health check for jobset.x-k8s.io JobSet (argocd-cm key resource.customizations.health.jobset.x-k8s.io_JobSet),
-- as `mxjob render --engine jobset` renders MXJobs. It reads the status the JobSet controller writes
-- (kubernetes-sigs/jobset pkg/controllers/jobset_controller.go): conditions Completed, Failed, Suspended,
-- RestartingJobSet, StartupPolicyInProgress/Completed, and replicatedJobsStatus (ready/active/succeeded/failed
-- child Jobs per replicatedJob). Argo CD's Lua sandbox opens no string or math library; none is used.
local hs = {status = "Progressing", message = "Waiting for the JobSet controller to report a status"}
local status = obj.status
if status == nil then
  return hs
end

local current = {}
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.status == "True" then
      current[condition.type] = condition
    end
  end
end

local function say(condition, fallback)
  if condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  return fallback
end

-- Finished and held states, most severe first (the controller sets Failed or Completed once, terminally).
local settled = {
  {condition = "Failed", health = "Degraded", fallback = "JobSet failed"},
  {condition = "Completed", health = "Healthy", fallback = "JobSet completed"},
  {condition = "Suspended", health = "Suspended", fallback = "JobSet is suspended"},
}
for _, state in ipairs(settled) do
  local condition = current[state.condition]
  if condition ~= nil then
    hs.status = state.health
    hs.message = say(condition, state.fallback)
    return hs
  end
end

-- Progressing: a restart or the startup order in progress, then the child Jobs per replicatedJob.
hs.message = "JobSet is running"
for _, name in ipairs({"RestartingJobSet", "StartupPolicyInProgress"}) do
  if current[name] ~= nil then
    hs.message = say(current[name], name)
  end
end
local parts = {}
if status.replicatedJobsStatus ~= nil then
  for _, rjob in ipairs(status.replicatedJobsStatus) do
    local part = rjob.name .. " " .. (rjob.ready or 0) .. " ready, " .. (rjob.active or 0) .. " active"
    if (rjob.succeeded or 0) > 0 then
      part = part .. ", " .. rjob.succeeded .. " succeeded"
    end
    if (rjob.failed or 0) > 0 then
      part = part .. ", " .. rjob.failed .. " failed"
    end
    parts[#parts + 1] = part
  end
end
if #parts > 0 then
  hs.message = hs.message .. " (" .. table.concat(parts, "; ") .. ")"
end
return hs
