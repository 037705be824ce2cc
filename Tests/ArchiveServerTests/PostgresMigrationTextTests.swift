@testable import ArchiveServerPostgres
import Logging
import PostgresNIO
import TestSupport
import Testing

/// A migration file for PostgreSQL is split into statements as PostgreSQL's own lexer sees
/// them (``PostgresStatements``): a `;` or `--` in a string, a quoted name, a function's
/// dollar-quoted body or a comment is text. Before, the file was cut at every `--` and at
/// every `;` that ended a line: a string holding `--` lost its end and a `$$` body its
/// second half, and the migration failed or stored the wrong text. Seen red with the old
/// splitter (both tests).
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct PostgresMigrationTextTests {
    /// A migration of every shape the old splitter cut: a string with `--` and with `;` at
    /// a line's end, an escape string, a quoted name with `;`, a function whose `$$` body
    /// has statements of its own, a tagged body, nested block comments.
    static let migration = """
        -- a comment; with a semicolon
        CREATE TABLE notes (id integer PRIMARY KEY, "odd;name" text NOT NULL);
        INSERT INTO notes VALUES (1, 'a -- not a comment'), (2, 'ends with;
        a new line'), (3, E'it\\'s; -- escaped');
        /* a /* nested */ comment; */
        CREATE FUNCTION bump(n integer) RETURNS integer LANGUAGE plpgsql AS $$
        BEGIN
            n := n + 1;  -- in the body
            RETURN n;
        END;
        $$;
        CREATE FUNCTION label() RETURNS text LANGUAGE sql AS $body$ SELECT 'x;y' $body$;
        INSERT INTO notes VALUES (4, label() || bump(41)::text);
        """

    @Test func aMigrationIsSplitOnlyWhereAStatementEnds() {
        let statements = PostgresStatements.split(Self.migration)
        #expect(statements.count == 5, "\(statements)")
        #expect(statements.allSatisfy { !$0.hasSuffix(";") })
        #expect(statements[1].contains("'ends with;\na new line'"))
        #expect(statements[2].contains("RETURN n;\nEND;\n$$"))
        #expect(PostgresStatements.split("SELECT $1; SELECT 2").count == 2)
        #expect(PostgresStatements.split("-- only a comment\n /* and another */ ;\n").isEmpty)
    }

    @Test func aMigrationOfEveryShapeRunsOnPostgreSQL() async throws {
        let url = try TestPostgres.server().newDatabase()
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        // One connection of its own (no pool: a pool's lease waits, uncancellably, for its
        // `run()`, which a cancelled test may never have started).
        let connection = try await PostgresConnection.connect(configuration: try PostgresLocation(url: url).connectionConfiguration, id: 1, logger: logger)
        do {
            try await PostgresMigrations.apply(Self.migration, on: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        let rows = try TestPostgres.server().query(#"SELECT string_agg(id || '=' || "odd;name", '|' ORDER BY id) FROM notes"#, in: url)
        #expect(rows == "1=a -- not a comment|2=ends with;\na new line|3=it's; -- escaped|4=x;y42", "\(rows)")
    }
}
