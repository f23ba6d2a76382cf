// gc_scan fixtures: per rule pack, files that must raise findings and benign look-alikes that must not.
// The secret values are made up here (random-looking, never issued).
const fakeAws = ['AKIA', 'Q3ZT7N2WB5XK4RLM'].join('');
const fakeGh = ['ghp_', 'x7Tq2LmN9vR4sW8yK1bZ3cD6fH0jP5gA2eUi'].join('');

export const POSITIVE: Record<string, { path: string; content: string; rules: string[] }> = {
  secrets: {
    path: 'app/settings.py',
    content: `import os

AWS_ACCESS_KEY_ID = "${fakeAws}"
DB_PASSWORD = "Tr0ub4dor&3xQ9!zP"
GITHUB = "${fakeGh}"
`,
    rules: ['secrets.aws-access-key', 'secrets.hardcoded-credential', 'secrets.provider-token'],
  },
  injection: {
    path: 'app/queries.py',
    content: `import os
import subprocess


def find_user(cursor, name):
    cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
    return cursor.fetchall()


def delete_user(cursor, uid):
    cursor.execute("DELETE FROM users WHERE id = " + uid)


def archive(path):
    os.system("tar czf /tmp/a.tgz " + path)
    subprocess.run(f"rm -rf {path}", shell=True)


def calc(expr):
    return eval(expr)
`,
    rules: ['injection.sql-string-building', 'injection.shell-command', 'injection.eval'],
  },
  'injection-js': {
    path: 'web/db.ts',
    content: `import { exec } from 'node:child_process';

export async function byName(db: any, name: string) {
  return db.query(\`SELECT id FROM users WHERE name = '\${name}'\`);
}

export function convert(file: string) {
  exec('convert ' + file + ' out.png');
}
`,
    rules: ['injection.sql-string-building', 'injection.shell-command'],
  },
  deserialization: {
    path: 'app/load.py',
    content: `import pickle
import yaml


def restore(blob):
    return pickle.loads(blob)


def config(text):
    return yaml.load(text)
`,
    rules: ['deserialization.pickle', 'deserialization.yaml-load'],
  },
  'deserialization-java': {
    path: 'src/main/java/App.java',
    content: `import java.io.*;

public class App {
    public Object read(InputStream in) throws Exception {
        ObjectInputStream ois = new ObjectInputStream(in);
        return ois.readObject();
    }
}
`,
    rules: ['deserialization.java-object-stream'],
  },
  'deserialization-node': {
    path: 'web/session.js',
    content: `const serialize = require('node-serialize');

function load(cookie) {
  return serialize.unserialize(cookie);
}
module.exports = { load };
`,
    rules: ['deserialization.node-serialize'],
  },
  'path-traversal': {
    path: 'app/files.py',
    content: `import os
from flask import request, send_file

BASE = "/srv/files"


def download():
    name = request.args.get("name")
    return send_file(os.path.join(BASE, name))


def direct():
    return open(os.path.join(BASE, request.args["f"])).read()
`,
    rules: ['path-traversal.user-input-path'],
  },
  'weak-crypto': {
    path: 'app/crypto.py',
    content: `import hashlib
from Crypto.Cipher import AES, DES


def hash_password(password):
    return hashlib.md5(password.encode()).hexdigest()


def legacy(key, data):
    return DES.new(key, DES.MODE_CBC).encrypt(data)


def box(key, data):
    return AES.new(key, AES.MODE_ECB).encrypt(data)
`,
    rules: ['weak-crypto.weak-password-hash', 'weak-crypto.des', 'weak-crypto.ecb-mode'],
  },
  'weak-crypto-js': {
    path: 'web/token.js',
    content: `function resetToken() {
  const token = Math.random().toString(36).slice(2);
  return token;
}
module.exports = { resetToken };
`,
    rules: ['weak-crypto.insecure-random-token'],
  },
};

/** Look-alikes: the same APIs used safely, placeholders, comments. None may raise a finding. */
export const BENIGN: Record<string, { path: string; content: string }> = {
  secrets: {
    path: 'app/settings_safe.py',
    content: `import os

# Set AWS_ACCESS_KEY_ID in the environment.
DB_PASSWORD = os.environ["DB_PASSWORD"]
API_KEY = os.getenv("API_KEY", "")
TOKEN_HEADER = "authorization"
PASSWORD_FIELD = "password_confirmation"
SECRET_NAME = "\${DB_SECRET}"
password = "changeme"
`,
  },
  injection: {
    path: 'app/queries_safe.py',
    content: `import ast
import subprocess


def find_user(cursor, name):
    cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
    return cursor.fetchall()


def archive(path):
    """Like os.popen() but safe."""
    subprocess.run(["tar", "czf", "/tmp/a.tgz", path], check=True)
    subprocess.Popen(["ver"], shell=True)
    return eval(r""" '\\x01' """)


def parse(expr):
    return ast.literal_eval(expr)


def train(model):
    model.eval()
    # never call eval(user_input) here
    return "select an option from the list"
`,
  },
  'injection-js': {
    path: 'web/db_safe.ts',
    content: `import { execFile } from 'node:child_process';

export async function byName(db: any, name: string) {
  return db.query('SELECT id FROM users WHERE name = $1', [name]);
}

export function convert(file: string) {
  execFile('convert', [file, 'out.png']);
  const m = /a(b)/.exec(file);
  return m;
}
`,
  },
  deserialization: {
    path: 'app/load_safe.py',
    content: `import json
import pickle
import yaml


def restore(blob):
    return json.loads(blob)


def config(text):
    return yaml.safe_load(text)


def config2(text):
    return yaml.load(text, Loader=yaml.SafeLoader)


def save(obj, f):
    pickle.dump(obj, f)


def clone(obj):
    return pickle.loads(pickle.dumps(obj))
`,
  },
  'deserialization-java': {
    path: 'src/main/java/Out.java',
    content: `import java.io.*;

public class Out {
    public void write(OutputStream out, Object o) throws Exception {
        ObjectOutputStream oos = new ObjectOutputStream(out);
        oos.writeObject(o);
    }
}
`,
  },
  'deserialization-node': {
    path: 'web/session_safe.js',
    content: `const serialize = require('serialize-javascript');

function dump(state) {
  return serialize(state);
}
function load(cookie) {
  return JSON.parse(cookie);
}
module.exports = { dump, load };
`,
  },
  'path-traversal': {
    path: 'app/files_safe.py',
    content: `import os
from flask import request, send_from_directory
from werkzeug.utils import secure_filename

BASE = "/srv/files"


def download():
    name = request.args.get("name")
    return send_from_directory(BASE, name)


def upload():
    f = request.files["file"]
    f.save(os.path.join(BASE, secure_filename(f.filename)))


def index():
    return open(os.path.join(BASE, "index.html")).read()
`,
  },
  'weak-crypto': {
    path: 'app/crypto_safe.py',
    content: `import hashlib
from Crypto.Cipher import AES

DESCRIPTION = "cache helpers"


def cache_key(data):
    return hashlib.md5(data).hexdigest()


def hash_password(password, salt):
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600000)


def box(key, data):
    return AES.new(key, AES.MODE_GCM).encrypt_and_digest(data)
`,
  },
  'weak-crypto-js': {
    path: 'web/jitter.js',
    content: `const crypto = require('node:crypto');

function backoff(attempt) {
  return 100 * 2 ** attempt + Math.random() * 50;
}
function resetToken() {
  return crypto.randomBytes(32).toString('hex');
}
module.exports = { backoff, resetToken };
`,
  },
};
