// The agent hosts the e2e suite runs, pinned, installed on demand into a cache
// folder (not devDependencies: they weigh over 400 MB and only this suite needs
// them). `node e2e/install-hosts.mjs` installs whatever is missing; `npm run
// test:e2e` runs it first. Each host version gets its own npm prefix, so two
// Claude Code versions live side by side.
//
// Cache: $GOAL_E2E_HOSTS_CACHE, else $XDG_CACHE_HOME/goal-system-e2e/hosts
// (~/.cache/goal-system-e2e/hosts).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Host -> npm package and the pinned versions: the first is the default, the last the newest
 * release on the registry when it was last bumped (`GOAL_E2E_<HOST>_VERSION=newest` names it).
 * To bump: `npm view <package> version`, put that as the last entry, run `npm run test:e2e`
 * (install-hosts fetches it once into the cache), and note what changed in e2e/NOTES.md.
 */
export const HOST_PACKAGES = {
  copilot: { name: '@github/copilot', versions: ['1.0.102'] },
  // 2.1.197 is what a plain install picks on Node 20; 2.1.330 the release the suite was
  // written against; 2.1.332 the newest on the registry (November 2026).
  claude: { name: '@anthropic-ai/claude-code', versions: ['2.1.197', '2.1.330', '2.1.332'] },
  codex: { name: '@openai/codex', versions: ['0.169.0'] },
  gemini: { name: '@google/gemini-cli', versions: ['0.61.0'] },
}

export function hostsCacheDir(env = process.env) {
  if (env.GOAL_E2E_HOSTS_CACHE) return path.resolve(env.GOAL_E2E_HOSTS_CACHE)
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(cache, 'goal-system-e2e', 'hosts')
}

/**
 * The version of `host` a run uses: GOAL_E2E_<HOST>_VERSION (a version, or `newest`: the last
 * pinned one), else the first pinned one.
 */
export function hostVersion(host, env = process.env) {
  const { versions } = HOST_PACKAGES[host]
  const asked = env[`GOAL_E2E_${host.toUpperCase()}_VERSION`]
  return asked === 'newest' ? versions.at(-1) : asked || versions[0]
}

/** The npm prefix holding one host version (its node_modules/ inside). */
export function hostPrefix(host, version, env = process.env) {
  const { name } = HOST_PACKAGES[host]
  return path.join(hostsCacheDir(env), `${name.replace('/', '+')}@${version}`)
}

function installedVersion(prefix, name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(prefix, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** Install every pinned host version that is missing. Returns [{ spec, prefix, installed, seconds }]. */
export function installHosts(env = process.env) {
  const done = []
  for (const [host, { name, versions }] of Object.entries(HOST_PACKAGES)) {
    for (const version of versions) {
      const prefix = hostPrefix(host, version, env)
      const spec = `${name}@${version}`
      if (installedVersion(prefix, name) === version) {
        done.push({ spec, prefix, installed: false, seconds: 0 })
        continue
      }
      fs.mkdirSync(prefix, { recursive: true })
      const started = Date.now()
      // Newer Claude Code declares Node >= 22 but is a native binary: the engine
      // warning is harmless here.
      const r = spawnSync(
        'npm',
        [
          'install',
          '--prefix',
          prefix,
          '--no-save',
          '--no-package-lock',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          '--engine-strict=false',
          spec,
        ],
        {
          stdio: 'inherit',
          env,
        },
      )
      if (r.status !== 0 || installedVersion(prefix, name) !== version) {
        throw new Error(`could not install ${spec} into ${prefix} (npm exit ${r.status ?? r.error?.message})`)
      }
      done.push({ spec, prefix, installed: true, seconds: Math.round((Date.now() - started) / 1000) })
    }
  }
  return done
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const d of installHosts()) {
      console.log(
        `e2e hosts: ${d.spec} ${d.installed ? `installed in ${d.seconds} s` : 'already installed'} (${d.prefix})`,
      )
    }
  } catch (err) {
    console.error(`e2e hosts: ${err.message}`)
    process.exit(1)
  }
}
