"""Planted secrets and their look-alikes, for the redaction tests and the reliability suite.

Every secret is assembled when the module loads (prefix + body), so this file never holds a
string that a secret scanner would flag. ``POSITIVES`` are (text, secret) pairs: after
redaction ``secret`` must be gone from the text. ``NEGATIVES`` must come back unchanged.
"""

from __future__ import annotations

B62 = "Zq8mW4tKp2Lx9Vb7Nc3Hd6Rf5Gj1Sy0Ta"  # a fake key body


def key(prefix: str, length: int, alphabet: str = B62) -> str:
    body = (alphabet * (length // len(alphabet) + 1))[:length]
    return prefix + body


HEX = "9f8e7d6c5b4a39281706a1b2c3d4e5f6"
PEM_LINE_1 = key("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 32)
PEM_LINE_2 = key("BKcwggSjAgEAAoIBAQC7", 44)
JWT = (
    key("eyJ", 33, "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
    + "."
    + key("eyJ", 40, "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6")
    + "."
    + key("", 43, "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
)

# Keys recognised by their shape alone, wherever they stand.
PROVIDER_KEYS: list[str] = [
    key("sk_" + "live_", 24),
    key("rk_" + "live_", 24),
    key("pk_" + "live_", 24),
    key("whsec" + "_", 32),
    key("sk-" + "proj-", 40),
    key("sk-" + "ant-api03-", 60),
    key("ghp" + "_", 36),
    key("github" + "_pat_", 60),
    key("glpat" + "-", 20),
    key("xoxb" + "-", 40),
    key("AK" + "IA", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    key("AI" + "za", 35),
    key("ya" + "29.", 40),
    key("GOC" + "SPX-", 28),
    key("npm" + "_", 36),
    key("pypi" + "-AgE", 60),
    key("hf" + "_", 34),
    key("SG" + ".", 22) + "." + key("", 43),
    key("SK", 32, HEX),
    key("shp" + "at_", 32, HEX),
    key("dop" + "_v1_", 64, HEX),
    key("da" + "pi", 32, HEX),
    "123456789:" + key("AA", 33),
    JWT,
]

POSITIVES: list[tuple[str, str]] = [
    # provider keys by prefix
    (f"stripe key {key('sk_' + 'live_', 24)} in prod", key("sk_" + "live_", 24)),
    (f"restricted {key('rk_' + 'live_', 24)}", key("rk_" + "live_", 24)),
    (f"publishable {key('pk_' + 'live_', 24)}", key("pk_" + "live_", 24)),
    (f"test mode {key('sk_' + 'test_', 24)}", key("sk_" + "test_", 24)),
    (f"webhook signing secret {key('whsec' + '_', 32)}", key("whsec" + "_", 32)),
    (f"OPENAI {key('sk-' + 'proj-', 40)}", key("sk-" + "proj-", 40)),
    (f"claude uses {key('sk-' + 'ant-api03-', 60)}", key("sk-" + "ant-api03-", 60)),
    (f"git push with {key('ghp' + '_', 36)}", key("ghp" + "_", 36)),
    (f"fine-grained {key('github' + '_pat_', 60)}", key("github" + "_pat_", 60)),
    (f"gitlab {key('glpat' + '-', 20)}", key("glpat" + "-", 20)),
    (f"slack bot {key('xoxb' + '-', 40)}", key("xoxb" + "-", 40)),
    (f"post to https://hooks.slack.com/services/{key('T0', 9)}/{key('B0', 9)}/{key('', 24)}", key("", 24)),
    (
        f"aws id {key('AK' + 'IA', 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')} ok",
        key("AK" + "IA", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ),
    (f"maps {key('AI' + 'za', 35)}", key("AI" + "za", 35)),
    (f"oauth access {key('ya' + '29.', 40)}", key("ya" + "29.", 40)),
    (f"client secret {key('GOC' + 'SPX-', 28)}", key("GOC" + "SPX-", 28)),
    (f"npm publish with {key('npm' + '_', 36)}", key("npm" + "_", 36)),
    (f"twine uses {key('pypi' + '-AgE', 60)}", key("pypi" + "-AgE", 60)),
    (f"HF_HUB {key('hf' + '_', 34)}", key("hf" + "_", 34)),
    (f"mail via {key('SG' + '.', 22)}.{key('', 43)}", key("SG" + ".", 22)),
    (f"twilio {key('SK', 32, HEX)}", key("SK", 32, HEX)),
    (f"shop {key('shp' + 'at_', 32, HEX)}", key("shp" + "at_", 32, HEX)),
    (f"droplet {key('dop' + '_v1_', 64, HEX)}", key("dop" + "_v1_", 64, HEX)),
    (f"databricks {key('da' + 'pi', 32, HEX)}", key("da" + "pi", 32, HEX)),
    (f"bot 123456789:{key('AA', 33)} here", key("AA", 33)),
    (f"session cookie {JWT}", JWT),
    (f"header x-{JWT}", JWT),
    # secrets stated in a sentence
    ("my password is hunter2Tr0ub4dor for the staging box", "hunter2Tr0ub4dor"),
    ("the passphrase for the backup key is 'correct horse battery staple'", "correct horse battery staple"),
    ("The staging password was changed to Xy7!pq2Z yesterday", "Xy7!pq2Z"),
    ("use Zq8#mW4t as the password for the admin panel", "Zq8#mW4t"),
    ("the API key is 9f8e7d6c5b4a39281706 for now", "9f8e7d6c5b4a39281706"),
    ("The PIN is 4821.", "4821"),
    ("the door passcode is 90210", "90210"),
    ("our token: abc123DEF456ghi", "abc123DEF456ghi"),
    ("the secret for prod is `s3cr3t-Value`", "s3cr3t-Value"),
    ("login with password Qw3rty!2024", "Qw3rty!2024"),
    ("我的密码是hunter2Tr0ub4dor", "hunter2Tr0ub4dor"),
    ("数据库密码为 Pg!2024secure，别外传", "Pg!2024secure"),
    ("令牌是 tk9aZ8bY7cX6", "tk9aZ8bY7cX6"),
    ("口令：Open5esame", "Open5esame"),
    ("staging 的 token 是 abc123xyz789", "abc123xyz789"),
    ("服务器密码改成了 Zx9!kLm2", "Zx9!kLm2"),
    # bearer, basic and header credentials
    ("Authorization: Bearer abcdef123456789xyz", "abcdef123456789xyz"),
    ("send bearer:abcDEF1234567890 with it", "abcDEF1234567890"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    (f"curl -H 'X-Api-Key: {HEX}' https://api.example.com", HEX),
    (f'{{"headers": {{"x-auth-token": "{key("t", 30)}"}}}}', key("t", 30)),
    # key bodies without their header
    (f"pasted:\n{PEM_LINE_1}\n{PEM_LINE_2}\nAQAB==\n", PEM_LINE_2),
    (f"the der line\n{PEM_LINE_1}\n", PEM_LINE_1),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
    ),
    # passwords in URLs and command lines
    ("cache at redis://:p4ssw0rdX@cache:6379/0", "p4ssw0rdX"),
    ("clone https://bob:p@ssw0rd@git.example.com/repo.git", "p@ssw0rd"),
    ("DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app", "Sup3rS3cret"),
    ("curl -u alice:hunter2pw https://api.example.com", "hunter2pw"),
    ("mysql -uroot -phunter2pw appdb", "hunter2pw"),
    ("sshpass -p 'Tr0ub4dor' ssh deploy@host", "Tr0ub4dor"),
    # .env, YAML, JSON and connection strings
    ("DB_PASS=s3cr3tP4ss", "s3cr3tP4ss"),
    ("SECRET_KEY_BASE='a9f8e7d6c5b4a3928170'", "a9f8e7d6c5b4a3928170"),
    ('{"user": "bob", "password": "hunter2pw"}', "hunter2pw"),
    ("settings:\n  api_token: tok9aZ8bY7cX6W5\n", "tok9aZ8bY7cX6W5"),
    (f"DefaultEndpointsProtocol=https;AccountName=x;AccountKey={key('', 86)}==;", key("", 86)),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY0EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY0EXAMPLE"),
    ("run ./migrate --password=hunter2pw now", "hunter2pw"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7"),
]

NEGATIVES: list[str] = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the flaky test",
    "cherry-pick a1b2c3d onto main",
    "request 123e4567-e89b-12d3-a456-426614174000 timed out",
    "the password field is required",
    "the password is required",
    "The password must be at least 12 characters long",
    "the token is valid for 3600 seconds",
    "max_tokens: 4096",
    "Set max_tokens=4096 in the request",
    "TOKENIZERS_PARALLELISM=false",
    'logo = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="',
    "echo aGVsbG8gd29ybGQ= | base64 -d",
    "data = base64.b64decode('U29tZSBiaW5hcnkgYmxvYg==')",
    "id = models.AutoField(primary_key=True)",
    "sorted(items, key=lambda item: item.name)",
    "docker run -u 1000:1000 alpine",
    "git@github.com:org/repo.git",
    "see https://example.com/path?query=1&page=2",
    "the API listens on http://localhost:8080/api",
    (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.tar\n"
        "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592  b.tar"
    ),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nd7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592",
    "Bearer authentication is configured in nginx",
    "the token expired yesterday",
    "Use token-based auth for the API",
    "the secret is out",
    "secrets are stored in Vault",
    "password_min_length = 12",
    "PASSWORD_FILE=/run/secrets/db_password",
    "TOKEN_URL=https://auth.example.com/oauth/token",
    "the API key is stored in $STRIPE_API_KEY",
    "pass the --no-cache flag to docker build",
    "the compass points north",
    "密码是必填的",
    "密码长度是8位",
    "请输入密码",
    "令牌已过期，请重新登录",
    "skip this step",
    "we use sk-learn for the model",
    "AKIA is the prefix of AWS access key ids",
    "version 1.2.3-rc.1 is out",
    "a ghp_ prefix marks GitHub personal tokens",
    "the password policy requires a digit",
    "Reset your password at https://example.com/reset",
    "email me at alice@example.com",
    "my pin code is on the card",
    "the secret key rotation runs weekly",
    "credentials are in ~/.aws/credentials",
    "mysql -u root -p appdb",
    "The password was reset by the admin",
    "token count: 1532",
    "x-request-id: 9f8e7d6c5b4a39281706",
    "jwt headers start with eyJhbGciOi",
    "sk_live_ keys must never be committed",
    "authorization: required for all endpoints",
    "it takes 2 passes",
    "C:\\Users\\alice\\Documents\\report.docx",
    "the tokenizer splits on whitespace",
    "password reset emails go out at 9",
    "set the timeout to 30s",
    "the secret sauce is patience",
    "the token limit is 8k per request",
]
