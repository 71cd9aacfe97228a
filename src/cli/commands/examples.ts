/** Examples shown at the end of each command's --help: what a person types first. */
import type { Command } from 'commander';

const EXAMPLES: Record<string, string[]> = {
  'users list': [
    'roster users list                          # activated and pending users, one page',
    'roster users list --query ber --sort lastName_DESC',
    'roster users list --all --status all -o csv > everyone.csv',
    'roster users list --fields id,email,lastName,department -o csv --no-headers',
    'roster users list --status deactivated --all -o ids | xargs -r roster users remove --yes',
  ],
  'users show': [
    'roster users show emp-1042             # by id or externalId',
    'roster users show ann@example.com      # by email',
    "printf 'emp-1042\\nemp-1043\\n' | roster users show -   # ids from standard input",
    'roster users show emp-1042 -o json',
  ],
  'users invite': [
    'roster users invite --email ann@example.com --first-name Ann --role editor --locale de_DE',
    'echo "$PASS" | roster users invite --user-name kiosk-1 --secret -   # activated at once',
  ],
  'users update': [
    'roster users update emp-1042 --set profile.position=CTO --unset profile.phoneNumber',
    'roster users update emp-1042 --set position=CTO --dry-run   # now → after; nothing written',
  ],
  'users deactivate': ['roster users deactivate emp-1042 emp-1043 --dry-run'],
  'users remove': [
    'roster users remove emp-1042 emp-1043 --yes',
    'roster users list -o ids --status deactivated | roster users remove - --yes',
  ],
  'users import': [
    'roster users import people.csv --dry-run    # the plan; nothing changes',
    'roster users import people.csv --report run.csv',
    'roster users import people.csv --resume run.csv   # after an interruption',
  ],
  'users export': [
    'roster users export --to people.csv',
    'roster users export --status all --bom > excel.csv',
  ],
  'media upload': [
    "roster media upload 'photos/*.jpg' report.pdf",
    'roster media upload scan.pdf --type pdf -o json',
    "roster media upload 'photos/*.jpg' --fields id,name -o csv",
    "roster media upload --skip-existing 'photos/*.jpg'   # a re-run uploads nothing",
  ],
  'media list': [
    'roster media list --all -o json',
    'roster media list --fields id,name,size,resourceInfo.width -o csv',
    'roster media list --all -o ids > media-ids.txt',
    'roster media list --type pdf --query report',
  ],
  'media download': [
    'roster media download 6b02… --to copy.jpg',
    'roster media download 6b02… --preview --to previews/',
  ],
  'media delete': ['roster media delete 6b02… --yes', 'roster media delete 6b02… --dry-run'],
  api: [
    'roster api /branch',
    "roster api '/users?status=pending&limit=5'",
    `echo '{"profile":{"position":"CTO"}}' | roster api -X PUT /users/emp-1042 --input -`,
  ],
  check: [
    'roster check                 # read-only probes',
    'roster check --write --json     # CI: also creates and removes throwaways',
  ],
  login: ['roster login --base-url https://acme.example.com/api --token - < token.txt'],
  serve: [
    'roster serve',
    'roster serve --port 0 --data ./data --quota 50GB --smtp-url smtp://mail:587',
    'ROSTER_DATABASE_URL=postgres://roster:pw@db:5432/roster roster serve --host 0.0.0.0',
  ],
  backup: ['roster backup --to /backups/roster-$(date +%F).db   # while serve runs'],
  copy: ['roster copy --data ./data --to postgres://roster:pw@db.internal:5432/roster'],
  'tokens create': ['roster tokens create --name ci --scopes users:read,media:read --json'],
  'webhooks listen': [
    'ROSTER_WEBHOOK_SECRET=whsec_… roster webhooks listen --port 9000',
    'roster webhooks listen --port 9000 -o ndjson | jq .data.target',
  ],
};

/** Adds the examples to every command that has some, anywhere in the tree. */
export function addExamples(cmd: Command, path: string[] = []): void {
  const lines = EXAMPLES[path.join(' ')];
  if (lines) cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}`);
  for (const sub of cmd.commands) addExamples(sub, [...path, sub.name()]);
}
