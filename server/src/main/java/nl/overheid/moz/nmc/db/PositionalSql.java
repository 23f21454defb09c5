package nl.overheid.moz.nmc.db;

import java.util.ArrayList;
import java.util.List;

/**
 * SQL with {@code :name} parameters turned into JDBC's {@code ?}, and the names in the order of their {@code ?}.
 * It reads the SQL as DbClient's own parser does (that one is not public): a parameter is a colon followed by a
 * Java identifier; nothing in a {@code '...'} string, a {@code -- } line or a block comment is one.
 * {@code StatementTest} holds the two to the same result for every statement of the NMC.
 */
record PositionalSql(String sql, List<String> names) {

    static PositionalSql of(String named) {
        StringBuilder sql = new StringBuilder(named.length());
        List<String> names = new ArrayList<>();
        int i = 0;
        int n = named.length();
        while (i < n) {
            char c = named.charAt(i);
            if (c == '\'') {
                int end = named.indexOf('\'', i + 1);
                end = end < 0 ? n : end + 1;
                sql.append(named, i, end);
                i = end;
            } else if (c == '-' && i + 1 < n && named.charAt(i + 1) == '-') {
                int end = lineEnd(named, i + 2);
                sql.append(named, i, end);
                i = end;
            } else if (c == '/' && i + 1 < n && named.charAt(i + 1) == '*') {
                int end = named.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                sql.append(named, i, end);
                i = end;
            } else if (c == ':' && i + 1 < n && startsName(named.charAt(i + 1))) {
                int end = i + 2;
                while (end < n && Character.isJavaIdentifierPart(named.charAt(end))) {
                    end++;
                }
                names.add(named.substring(i + 1, end));
                sql.append('?');
                i = end;
            } else {
                sql.append(c);
                i++;
            }
        }
        return new PositionalSql(sql.toString(), List.copyOf(names));
    }

    private static boolean startsName(char c) {
        return c == '_' || Character.isJavaIdentifierStart(c);
    }

    /** Where a {@code --} comment ends: at its line's end (LF, or a CR), which stays in the statement. */
    private static int lineEnd(String sql, int from) {
        for (int i = from; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\n' || c == '\r') {
                return i;
            }
        }
        return sql.length();
    }
}
