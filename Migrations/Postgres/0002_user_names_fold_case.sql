-- User names ignore case, and need a letter or a digit (issue 56): `Alice`, `alice` and
-- `ALICE` were three users, `.`, `..` and `-` names. Existing names become lower case;
-- where several differed only by case, the first added keeps the name and each other gets
-- its ID appended (`alice-7`); a name of punctuation only becomes `user-ID`. Tokens,
-- favorites and devices stay as they are: every device keeps syncing. A name that would
-- then collide with another user's (a user already named `alice-7`) fails the migration,
-- which changes nothing: rename by hand, then start again.
UPDATE users SET name = 'user-' || id WHERE name !~ '[A-Za-z0-9]';

UPDATE users SET name = substr(lower(name), 1, 63 - length(id::text)) || '-' || id
WHERE EXISTS (SELECT 1 FROM users AS earlier WHERE lower(earlier.name) = lower(users.name) AND earlier.id < users.id);

UPDATE users SET name = lower(name) WHERE name <> lower(name);

CREATE UNIQUE INDEX users_by_folded_name ON users (lower(name));
