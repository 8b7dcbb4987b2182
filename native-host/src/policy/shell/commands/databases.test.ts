import { describe } from 'vitest';

import { expectLevels, useShellAnalyzer } from '../test-support.js';

useShellAnalyzer();

describe('databases', () => {
  expectLevels([
    ['sqlite3 app.db "SELECT * FROM users"', 'medium'],
    ['sqlite3 app.db .tables', 'medium'],
    ['sqlite3 app.db "INSERT INTO t VALUES (1)"', 'high'],
    ['sqlite3 app.db "DELETE FROM t WHERE id = 1"', 'high'],
    ['sqlite3 app.db "DELETE FROM t"', 'critical'],
    ['sqlite3 app.db "UPDATE t SET a = 1"', 'critical'],
    ['sqlite3 app.db "drop table t"', 'critical'],
    ['sqlite3 app.db "ALTER TABLE t DROP COLUMN c"', 'critical'],
    ['sqlite3 app.db', 'critical'],
    ['sqlite3 app.db <<EOF\nSELECT 1;\nEOF', 'medium'],
    ['sqlite3 app.db <<EOF\nDROP TABLE t;\nEOF', 'critical'],
    ['sqlite3 app.db < schema.sql', 'critical'],
    ['echo "SELECT 1;" | sqlite3 app.db', 'medium'],
    ['echo "DROP TABLE t;" | sqlite3 app.db', 'critical'],
    ['echo "$SQL" | sqlite3 app.db', 'critical'],
    ["printf 'SELECT %s;' 1 | psql", 'medium'],
    ["printf 'DR\\x4fP TABLE t' | psql", 'critical'],
    ['cat <<EOF | psql\nSELECT 1;\nEOF', 'medium'],
    ['cat <<EOF | psql\nTRUNCATE t;\nEOF', 'critical'],
    ["psql -c 'SELECT now()'", 'medium'],
    ["psql -c 'TRUNCATE t'", 'critical'],
    ['psql -l', 'low'],
    ['psql -f seed.sql', 'critical'],
    ["mysql -e 'SHOW TABLES'", 'medium'],
    ["mysql -e 'DROP DATABASE x'", 'critical'],
    ["mongosh --eval 'db.users.find()'", 'medium'],
    ["mongosh --eval 'db.users.drop()'", 'critical'],
    ["mongosh --eval 'db.users.deleteMany({})'", 'critical'],
    ['mongosh mydb cleanup.js', 'critical'],
    ['redis-cli GET key', 'medium'],
    ['redis-cli SET key 1', 'high'],
    ['redis-cli FLUSHALL', 'critical'],
    ['redis-cli CONFIG SET dir /home/u/.ssh', 'critical'],
    ['redis-cli', 'critical'],
    ['redis-cli --version', 'low'],
    ["sqlite3 app.db '.shell rm -rf ~'", 'critical'],
    ["sqlite3 app.db '.output /home/u/.bashrc'", 'critical'],
    ["psql -c '\\! id'", 'critical'],
    ["psql -c '\\o /tmp/out'", 'critical'],
    ['psql -c "COPY t TO PROGRAM \'sh\'"', 'critical'],
    ["mysql -e 'system id'", 'critical'],
    ['mysql -e "SELECT load_file(\'/etc/shadow\')"', 'critical'],
  ]);
});
