package nl.overheid.moz.nmc.ldv;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The PostgreSQL store's failures by SQLSTATE: only a row's own content is worth writing the others again for. */
class PostgresSpanRepositoryFailureTest {

    private static SpanStore.Failure failure(String sqlState) {
        return PostgresSpanRepository.failure(
                "writing 2 row(s)", new IllegalStateException(new SQLException("failed", sqlState)));
    }

    @Test
    void aDuplicateKeyOrAValueTheColumnCannotTakeIsOneRowsFailure() {
        assertThat(failure("23505").oneRow()).as("unique_violation").isTrue();
        assertThat(failure("22P02").oneRow()).as("invalid_text_representation").isTrue();
        assertThat(failure("23505").reason()).isEqualTo("error");
    }

    @Test
    void theStoresOwnFailuresAreNot() {
        assertThat(failure("25006").oneRow())
                .as("read_only_sql_transaction, a standby after failover")
                .isFalse();
        assertThat(failure("XX000").oneRow()).isFalse();
        assertThat(failure("57014").oneRow()).isFalse();
        assertThat(failure("57014").reason()).isEqualTo("timeout");
    }
}
