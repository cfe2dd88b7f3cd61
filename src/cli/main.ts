/**
 * The admin command line: `bulwark <area> <command> [--json]`. This file only turns argv
 * into a call of one command function (commands/*.ts) and prints what it returns; the
 * commands call the domain, never SQL. Configuration comes from the same BULWARK_*
 * variables as the server. With --json, stdout carries exactly one JSON object, errors included.
 */
import { Command, CommanderError, Option } from 'commander'
import type { Services } from '../domain/services.js'
import { OWNER_TYPES } from '../model/kinds.js'
import { ACCOUNT_KINDS, COMMUNITY_ROLES, ORGANIZATION_ROLES, SYSTEM_ROLES } from '../model/roles.js'
import type { Store } from '../store/connect.js'
import { createKeyCommand, revokeKeysCommand } from './commands/keys.js'
import { listMembershipsCommand, removeMembershipCommand, setMembershipCommand } from './commands/memberships.js'
import { createOwnerCommand, listOwnersCommand } from './commands/owners.js'
import { getSettingCommand, listSettingsCommand, setSettingCommand } from './commands/settings.js'
import { runLifecycleCommand, setLifecycleCommand, showLifecycleCommand } from './commands/lifecycle.js'
import {
  addListCommand,
  listListsCommand,
  removeListCommand,
  showListCommand,
  updateListCommand,
} from './commands/lists.js'

import { feedHistoryCommand, runFeedCommand } from './commands/feed-runs.js'
import { statusCommand } from './commands/status.js'
import { createTokenCommand, revokeTokensCommand } from './commands/tokens.js'
import {
  createUserCommand,
  disableUserCommand,
  enableUserCommand,
  listUsersCommand,
  setUserPasswordCommand,
  setUserTokenLifetimeCommand,
} from './commands/users.js'
import { type CommandResult, errorResult, renderJson, renderText } from './output.js'
import { openRuntime } from './runtime.js'
import { backupCommand, restoreCommand } from './commands/backup.js'
import { EXPORT_FORMATS, exportCommand } from './commands/export.js'
import { IMPORT_FORMATS, importCommand } from './commands/import.js'
import {
  type FeedOptions,
  addFeedCommand,
  listFeedsCommand,
  removeFeedCommand,
  setFeedCommand,
  showFeedCommand,
} from './commands/feeds.js'
import { FEED_KINDS } from '../domain/feeds/feed.js'
import { progressOn } from './progress.js'
import { type Config, loadConfig } from '../config.js'

type Run = (store: Store, services: Services) => Promise<CommandResult>
type Options = Record<string, string | boolean | undefined>

/** Known before parsing, so that usage errors come out as JSON too. */
const json = process.argv.includes('--json')
const USAGE_EXIT_CODE = 2

async function execute(run: Run): Promise<void> {
  await executeWithConfig((store, _config, services) => run(store, services))
}

async function executeWithConfig(
  run: (store: Store, config: Config, services: Services) => Promise<CommandResult>,
): Promise<void> {
  const runtime = await openRuntime()
  try {
    if (runtime.firstStart) {
      const where = runtime.firstStart.credentialsFile
        ? ` Its credentials are in ${runtime.firstStart.credentialsFile}.`
        : ''
      process.stderr.write(
        `First start: created '${runtime.firstStart.organization}' and its administrator '${runtime.firstStart.userName}'.${where}\n`,
      )
    }
    const result = await run(runtime.store, runtime.config, runtime.services)
    process.stdout.write(json ? renderJson(result) : renderText(result))
    if (!json && ('token' in result || 'secretKey' in result))
      process.stderr.write('This secret is shown only now; store it safely.\n')
  } finally {
    await runtime.close()
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

async function passwordFrom(o: Options): Promise<string | undefined> {
  return o.passwordStdin ? readStdin() : (o.password as string | undefined)
}

const JSON_HELP = 'print exactly one JSON object on stdout'

function leaf(parent: Command, name: string, summary: string): Command {
  return parent.command(name).description(summary).option('--json', JSON_HELP)
}

function area(name: string, summary: string): Command {
  return program.command(name).description(summary).option('--json', JSON_HELP)
}

const str = (value: unknown) => value as string | undefined

const program = new Command('bulwark')
  .description(
    'Administer a Bulwark database: owners, accounts, credentials, settings, outbound lists, backups, imports, exports. Reads the same BULWARK_* variables as the server.',
  )
  .option('--json', JSON_HELP)
  .exitOverride()
  .configureOutput({
    writeErr: (text) => {
      if (!json) process.stderr.write(text)
    },
    outputError: (text, write) => {
      if (!json) write(text)
    },
  })

const owners = area('owners', 'Organizations, Communities and Sources')
leaf(owners, 'create', 'Create an owner')
  .argument('<name>', 'owner name')
  .addOption(new Option('--type <type>', 'owner type').choices(OWNER_TYPES).default('Organization'))
  .option('--description <text>', 'free-text description')
  .action((name: string, o: Options) =>
    execute((s, v) => createOwnerCommand(s, v, { name, type: str(o.type), description: str(o.description) })),
  )
leaf(owners, 'list', 'List every owner').action(() => execute((s, v) => listOwnersCommand(s, v)))

const users = area('users', 'Human, API and TAXII accounts')
leaf(users, 'create', 'Create an account in an Organization')
  .argument('<userName>', 'unique user name')
  .addOption(
    new Option('--kind <kind>', 'account kind (human: a person, who signs in to the console with a password)')
      .choices(ACCOUNT_KINDS)
      .default('api'),
  )
  .option('--organization <name>', 'home Organization (default: the only Organization)')
  .option(
    '--role <role>',
    `Organization role: ${ORGANIZATION_ROLES.join(', ')} (default Standard User; TAXII accounts: Standard User only)`,
  )
  .option(
    '--system-role <role>',
    `System role: ${SYSTEM_ROLES.join(', ')} (default by kind: User, Api User, Taxii User)`,
  )
  .option('--first-name <name>')
  .option('--last-name <name>')
  .option('--pseudonym <name>')
  .option('--email <address>')
  .option('--password <password>', 'password (required for TAXII accounts; the console sign-in of human accounts)')
  .option('--password-stdin', 'read the password from standard input instead')
  .option('--token-lifetime-days <days>', 'lifetime of the API tokens issued to this account (default: no expiry)')
  .action(async (userName: string, o: Options) => {
    const password = await passwordFrom(o)
    await execute((s, v) =>
      createUserCommand(s, v, {
        userName,
        kind: str(o.kind),
        organization: str(o.organization),
        role: str(o.role),
        systemRole: str(o.systemRole),
        firstName: str(o.firstName),
        lastName: str(o.lastName),
        pseudonym: str(o.pseudonym),
        email: str(o.email),
        password,
        tokenLifetimeDays: str(o.tokenLifetimeDays),
      }),
    )
  })
leaf(users, 'list', 'List accounts (never their credentials)')
  .option('--organization <name>', 'only this Organization')
  .addOption(new Option('--kind <kind>', 'only this kind').choices(ACCOUNT_KINDS))
  .action((o: Options) =>
    execute((s, v) => listUsersCommand(s, v, { organization: str(o.organization), kind: str(o.kind) })),
  )
leaf(users, 'disable', 'Refuse every credential of an account')
  .argument('<userName>')
  .action((userName: string) => execute((s, v) => disableUserCommand(s, v, { userName })))
leaf(users, 'enable', 'Accept the credentials of a disabled account again')
  .argument('<userName>')
  .action((userName: string) => execute((s, v) => enableUserCommand(s, v, { userName })))
leaf(users, 'set-password', 'Set the password of a TAXII or human account')
  .argument('<userName>')
  .option('--password <password>', 'the new password (at least 8 characters)')
  .option('--password-stdin', 'read it from standard input instead')
  .action(async (userName: string, o: Options) => {
    const password = await passwordFrom(o)
    await execute((s, v) => setUserPasswordCommand(s, v, { userName, password }))
  })
leaf(users, 'set-token-lifetime', 'Set how many days new API tokens of the account live')
  .argument('<userName>')
  .argument('<days>', "whole number of days, or 'none' for tokens that do not expire")
  .action((userName: string, days: string) => execute((s, v) => setUserTokenLifetimeCommand(s, v, { userName, days })))

const memberships = area('memberships', 'Roles of accounts in owners')
leaf(memberships, 'set', 'Give an account a role in an owner (adds or changes the membership)')
  .argument('<userName>')
  .argument('<owner>', 'owner name')
  .argument(
    '<role>',
    `Organization role (${ORGANIZATION_ROLES.join(', ')}) or Community/Source role (${COMMUNITY_ROLES.join(', ')})`,
  )
  .action((userName: string, owner: string, role: string) =>
    execute((s, v) => setMembershipCommand(s, v, { userName, owner, role })),
  )
leaf(memberships, 'remove', 'Take an account out of a Community or Source')
  .argument('<userName>')
  .argument('<owner>')
  .action((userName: string, owner: string) => execute((s, v) => removeMembershipCommand(s, v, { userName, owner })))
leaf(memberships, 'list', 'List memberships')
  .option('--user <userName>', 'only this account')
  .option('--owner <name>', 'only this owner')
  .action((o: Options) =>
    execute((s, v) => listMembershipsCommand(s, v, { userName: str(o.user), owner: str(o.owner) })),
  )

const tokens = area('tokens', 'API tokens (Authorization: TC-Token <token>)')
leaf(tokens, 'create', 'Issue an API token and print it once')
  .argument('<userName>')
  .option('--lifetime-days <days>', "lifetime in days (default: the account's token lifetime, else no expiry)")
  .option('--temporary', 'a 4-hour token (Standard User, Sharing User, Organization Administrator, App Developer)')
  .action((userName: string, o: Options) =>
    execute((s, v) =>
      createTokenCommand(s, v, {
        userName,
        lifetimeDays: str(o.lifetimeDays),
        temporary: !!o.temporary,
      }),
    ),
  )
leaf(tokens, 'revoke', 'Revoke every API token of an account')
  .argument('<userName>')
  .action((userName: string) => execute((s, v) => revokeTokensCommand(s, v, { userName })))

const keys = area('keys', 'Access id + secret key pairs for HMAC signatures (API accounts)')
leaf(keys, 'create', 'Create an access id and secret key and print them once')
  .argument('<userName>')
  .action((userName: string) => execute((s, v) => createKeyCommand(s, v, { userName })))
leaf(keys, 'revoke', 'Revoke access keys of an account')
  .argument('<userName>')
  .option('--access-id <id>', 'only this one (default: all)')
  .action((userName: string, o: Options) =>
    execute((s, v) => revokeKeysCommand(s, v, { userName, accessId: str(o.accessId) })),
  )

program
  .command('backup')
  .description(
    'Write a consistent copy of the whole database to a new file (SQLite: online, while the server runs; PostgreSQL: pg_dump custom format)',
  )
  .argument('<file>', 'the backup file to create (mode 0600)')
  .option('--json', JSON_HELP)
  .action((file: string) => executeWithConfig((store, config) => backupCommand(store, config, { file })))
program
  .command('restore')
  .description('Replace the whole database with a backup; stop every node first')
  .argument('<file>', 'a file written by bulwark backup')
  .option('--json', JSON_HELP)
  .action(async (file: string) => {
    const result = await restoreCommand(loadConfig(), { file })
    // Opening it afterwards applies the migrations of this version to an older backup.
    await execute(async () => result)
  })

program
  .command('import')
  .description(
    'Import into an owner from STIX 2.0 or 2.1 (Indicators, Groups from SDOs, associations from relationships, observations from sightings), MISP events (a file, or a MISP feed directory with its manifest.json), a V2 batch file, a CSV or a plain list (free text); bad items are reported, the rest written',
  )
  .argument('<file>', 'the file to read, or a MISP feed directory')
  .requiredOption('--owner <name>', 'the owner to import into')
  .addOption(
    new Option(
      '--format <format>',
      'default by extension: .csv csv, .stix stix, .json a STIX bundle or MISP events if it starts like one else batch, anything else list; a directory holding manifest.json misp',
    ).choices(IMPORT_FORMATS),
  )
  .option(
    '--type <type>',
    "the Indicator type of every line of a plain list (Host, Address, URL, …); without it each value's type is detected",
  )
  .option(
    '--map <columns>',
    'for a CSV whose header names its columns otherwise: field=column pairs, e.g. value=IOC,type=Kind,tags=Labels,validUntil=Expiry (fields: value, type, rating, confidence, tags, description, source, tlp, firstSeen, lastSeen, externalDateAdded or validFrom, externalLastModified, externalDateExpires or validUntil, value1-value3)',
  )
  .option('--as <userName>', 'the account the import runs as (default: the first-start administrator)')
  .option('--json', JSON_HELP)
  .action((file: string, o: Options) => {
    const bar = progressOn(process.stderr, json)
    return executeWithConfig((store, config, services) =>
      importCommand(store, services, {
        file,
        owner: o.owner as string,
        format: str(o.format),
        type: str(o.type),
        map: str(o.map),
        userName: str(o.as) ?? config.admin.userName,
        progress:
          bar && ((t) => bar.update(`${t.items} items: ${t.successCount} written, ${t.errorCount} errors`, t.fraction)),
      }).finally(() => bar?.done()),
    )
  })

program
  .command('export')
  .description(
    "Export an owner's Indicators, optionally filtered by TQL, as a STIX 2.1 bundle or a V2 batch file (bulwark import reads both back)",
  )
  .requiredOption('--owner <name>', 'the owner to export')
  .requiredOption('--output <file>', 'the file to create (mode 0600); an existing one is refused unless --force')
  .addOption(
    new Option('--format <format>', 'default: stix for a .stix or .stix.json file, else batch').choices(EXPORT_FORMATS),
  )
  .option('--tql <filter>', 'only the Indicators this TQL filter matches, e.g. "rating >= 3"')
  .option('--force', 'replace an existing --output file (written beside it, then renamed over it)')
  .option('--as <userName>', 'the account the export runs as (default: the first-start administrator)')
  .option('--json', JSON_HELP)
  .action((o: Options) => {
    const bar = progressOn(process.stderr, json)
    return executeWithConfig((store, config, services) =>
      exportCommand(store, services, {
        owner: o.owner as string,
        output: o.output as string,
        tql: str(o.tql),
        format: str(o.format),
        force: o.force === true,
        userName: str(o.as) ?? config.admin.userName,
        progress:
          bar &&
          ((count, total) =>
            bar.update(
              `exported ${count}${total === undefined ? '' : ` of ${total}`} Indicators`,
              total ? count / total : undefined,
            )),
      }).finally(() => bar?.done()),
    )
  })

const settings = area('settings', 'System settings shared by every node')
leaf(settings, 'list', 'List every setting with its value and default').action(() =>
  execute((s, v) => listSettingsCommand(s, v)),
)
leaf(settings, 'get', 'Show one setting')
  .argument('<name>')
  .action((name: string) => execute((s, v) => getSettingCommand(s, v, { name })))
leaf(settings, 'set', 'Change a setting (true/false or a whole number)')
  .argument('<name>')
  .argument('<value>')
  .action((name: string, value: string) => execute((s, v) => setSettingCommand(s, v, { name, value })))

const feeds = area(
  'feeds',
  'Feeds Bulwark pulls on a schedule: TAXII 2.1 and 1.1, MISP, CSV and text lists (docs/feeds.md)',
)

/** The options of `feeds add`, and of `feeds set` with the ones that take something away. */
function feedOptions(command: Command, changing: boolean): Command {
  command
    .addOption(new Option('--kind <kind>', 'what the feed speaks').choices(FEED_KINDS))
    .option('--url <url>', 'where it is read (http or https; credentials go in their own options)')
    .option('--owner <name>', 'the owner its items go to (normally a Source)')
    .option('--collection <id>', 'TAXII 2.1: the collection id or alias; TAXII 1.1: the collection name')
    .option('--types <a,b>', 'TAXII 2.1: only these STIX object types')
    .option('--columns <map>', 'CSV: field=column pairs, as import --map takes them')
    .option('--indicator-type <type>', 'text (required) and CSV: the Indicator type of every value')
    .option('--mirror', 'CSV and text: values that left the list become inactive')
    .option('--user <user>', 'Basic authentication: the user (with --password)')
    .option('--password <password>', 'Basic authentication: the password')
    .option('--password-stdin', 'read the password from standard input instead')
    .option('--token <token>', 'Bearer authentication: the token')
    .option('--header <header>', "a header that authenticates, 'Name: value'")
    .option('--ca-file <pem>', 'PEM certificates to trust for this feed besides the system ones')
    .option('--interval <duration>', 'how often: 15m, 1h, 1d or whole seconds (at least 60 s; default 1h)')
    .option('--import-from <date>', 'ISO 8601: nothing older is asked for')
    .option('--max-per-run <n>', 'most objects one run takes')
    .option('--rating <n>', 'default rating of its items, 0-5')
    .option('--confidence <n>', 'default confidence of its items, 0-100')
    .option(
      '--tag <tag>',
      'a default tag of its items (repeatable; on set, replaces them)',
      (t: string, all: string[]) => [...all, t],
      [],
    )
    .option(
      '--security-label <label>',
      'default Security Label: one of the owner or a standard TLP label (none unless given)',
    )
    .option('--disabled', 'keep it from running on schedule')
  if (changing)
    command
      .option('--no-mirror', 'CSV and text: keep values that left the list')
      .option('--enabled', 'run it on schedule again (due at once)')
      .option('--no-credentials', 'remove its credentials')
      .option('--no-ca-file', 'trust the system certificates only')
  return command
}

async function feedOptionsOf(o: Options): Promise<FeedOptions> {
  return {
    kind: str(o.kind),
    url: str(o.url),
    owner: str(o.owner),
    collection: str(o.collection),
    types: str(o.types),
    columns: str(o.columns),
    indicatorType: str(o.indicatorType),
    mirror: o.mirror as boolean | undefined,
    user: str(o.user),
    password: await passwordFrom(o),
    token: str(o.token),
    header: str(o.header),
    noCredentials: o.credentials === false,
    caFile: typeof o.caFile === 'string' ? o.caFile : undefined,
    noCaFile: o.caFile === false,
    interval: str(o.interval),
    importFrom: str(o.importFrom),
    maxPerRun: str(o.maxPerRun),
    rating: str(o.rating),
    confidence: str(o.confidence),
    tag: o.tag as unknown as string[],
    securityLabel: str(o.securityLabel),
    disabled: o.disabled === true,
    enabled: o.enabled === true,
  }
}

feedOptions(leaf(feeds, 'add', 'Add a feed; it runs at once, then every --interval'), false)
  .argument('<name>', 'unique feed name')
  .action(async (name: string, o: Options) => {
    const options = await feedOptionsOf(o)
    await executeWithConfig((s, c, v) => addFeedCommand(s, v, { name, userName: c.admin.userName, options }))
  })
leaf(feeds, 'list', 'List every feed (never its credentials)').action(() =>
  executeWithConfig((s, c, v) => listFeedsCommand(s, v, { userName: c.admin.userName })),
)
leaf(feeds, 'show', 'Show one feed (its credentials by kind only)')
  .argument('<name>')
  .action((name: string) => executeWithConfig((s, c, v) => showFeedCommand(s, v, { name, userName: c.admin.userName })))
feedOptions(
  leaf(
    feeds,
    'set',
    'Change what the options give; a new source (kind, URL, collection, owner, --import-from) starts over',
  ),
  true,
)
  .argument('<name>')
  .action(async (name: string, o: Options) => {
    const options = await feedOptionsOf(o)
    await executeWithConfig((s, c, v) => setFeedCommand(s, v, { name, userName: c.admin.userName, options }))
  })
leaf(feeds, 'remove', 'Remove a feed and the record of its runs (what it imported stays)')
  .argument('<name>')
  .action((name: string) =>
    executeWithConfig((s, c, v) => removeFeedCommand(s, v, { name, userName: c.admin.userName })),
  )

const lifecycle = area('lifecycle', 'How long Indicators stay active without being seen again')
leaf(lifecycle, 'show', "An owner's days per Indicator type, and the last run")
  .requiredOption('--owner <name>', 'The owner')
  .action((opts: { owner: string }) => execute((s, v) => showLifecycleCommand(s, v, opts)))
leaf(lifecycle, 'set', "Set an owner's days for one Indicator type")
  .requiredOption('--owner <name>', 'The owner')
  .requiredOption('--type <type>', 'The Indicator type (Address, Host, File…)')
  .requiredOption('--days <days>', "Days without being seen again (0: never), or 'default'")
  .action((opts: { owner: string; type: string; days: string }) => execute((s, v) => setLifecycleCommand(s, v, opts)))
leaf(lifecycle, 'run', 'Turn stale Indicators inactive now').action(() => execute((s, v) => runLifecycleCommand(s, v)))

const lists = area('lists', 'Outbound lists: saved TQL queries firewalls read as text or CSV (docs/lists.md)')
const LIST_TYPES_HELP = 'only these Indicator types, comma-separated (Address,CIDR,Host,URL,File …)'
const LIST_SAVED_SEARCH_HELP =
  'instead of --tql: a saved search of Indicators (its id) whose current TQL the list follows'
const LIST_OWNERS_HELP = "only these owners' Indicators, comma-separated (default: every owner the reader may read)"
leaf(lists, 'add', 'Save a list and print its URLs (only active Indicators are ever served)')
  .argument('<name>', 'part of its URL: letters, digits, dots, dashes, underscores')
  .option('--tql <query>', 'TQL over Indicators, e.g. \'rating >= 3\' ("" keeps them all)')
  .option('--saved-search <id>', LIST_SAVED_SEARCH_HELP)
  .option('--types <types>', LIST_TYPES_HELP)
  .option('--owners <owners>', LIST_OWNERS_HELP)
  .action((name: string, o: Options) =>
    execute((s, v) =>
      addListCommand(s, v, {
        name,
        tql: str(o.tql),
        savedSearch: str(o.savedSearch),
        types: str(o.types),
        owners: str(o.owners),
      }),
    ),
  )
leaf(lists, 'update', "Change a list's TQL, types or owners (an empty --types or --owners removes that narrowing)")
  .argument('<name>')
  .option('--tql <query>', 'TQL over Indicators (ends following a saved search)')
  .option('--saved-search <id>', LIST_SAVED_SEARCH_HELP)
  .option('--types <types>', LIST_TYPES_HELP)
  .option('--owners <owners>', LIST_OWNERS_HELP)
  .action((name: string, o: Options) =>
    execute((s, v) =>
      updateListCommand(s, v, {
        name,
        tql: str(o.tql),
        savedSearch: str(o.savedSearch),
        types: str(o.types),
        owners: str(o.owners),
      }),
    ),
  )
leaf(lists, 'list', 'Every list with its text URL').action(() => execute((s, v) => listListsCommand(s, v)))
leaf(lists, 'show', 'One list with its URLs')
  .argument('<name>')
  .action((name: string) => execute((s, v) => showListCommand(s, v, { name })))
leaf(lists, 'remove', 'Remove a list; its URLs answer 404 from then on')
  .argument('<name>')
  .action((name: string) => execute((s, v) => removeListCommand(s, v, { name })))

leaf(feeds, 'run', 'Run a feed now: with --wait here, printing the run; else a server runs it at its next look')
  .argument('<name>', 'the feed')
  .option('--wait', 'run it in this process and print the run record (exit code 1 when it failed)')
  .action((name: string, o: Options) =>
    execute(async (s, v) => {
      const run = await runFeedCommand(s, v, { name, wait: o.wait === true })
      if ('status' in run && run.status === 'Failed') process.exitCode = 1
      return run
    }),
  )
leaf(feeds, 'history', "A feed's runs, newest first (the last 100 are kept)")
  .argument('<name>', 'the feed')
  .option('--limit <n>', 'how many runs (1-100, default 20)')
  .action((name: string, o: Options) => execute((s, v) => feedHistoryCommand(s, v, { name, limit: str(o.limit) })))

leaf(program, 'status', 'Database dialect, migrations, counts and settings').action(() =>
  execute((s, v) => statusCommand(s, v)),
)

function fail(error: unknown, exitCode: number) {
  if (json) process.stdout.write(renderJson(errorResult(error)))
  else process.stderr.write(`bulwark: ${errorResult(error).error}\n`)
  process.exitCode = exitCode
}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return
    // Without --json, commander has already printed the usage error.
    if (!json) {
      process.exitCode = USAGE_EXIT_CODE
      return
    }
    const message =
      error.code === 'commander.help'
        ? 'A command is required; add --help to see them'
        : error.message.replace(/^error: /, '')
    fail(new Error(message), USAGE_EXIT_CODE)
    return
  }
  fail(error, 1)
})
