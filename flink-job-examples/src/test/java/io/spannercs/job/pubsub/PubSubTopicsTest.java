package io.spannercs.job.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PubSubTopicsTest {
    @Test
    void theDefaultIsATopicPerTable() {
        assertThat(PubSubTopics.topicId(PubSubTopics.DEFAULT_PATTERN, "orders-db", "Items"))
                .isEqualTo("spanner.orders-db.Items");
        assertThat(PubSubTopics.problem(PubSubTopics.DEFAULT_PATTERN)).isNull();
    }

    @Test
    void charactersPubSubForbidsInTheValuesBecomeUnderscores() {
        assertThat(PubSubTopics.topicId("cdc-{database}-{table}", "db", "sales.Orders$1 x"))
                .isEqualTo("cdc-db-sales.Orders_1_x");
    }

    @Test
    void oneTopicForAllTablesIsAllowed() {
        assertThat(PubSubTopics.problem("cdc-{database}")).isNull();
        assertThat(PubSubTopics.topicId("cdc-{database}", "db", "Items")).isEqualTo("cdc-db");
        assertThat(PubSubTopics.problem("all-changes")).isNull();
    }

    @Test
    void patternProblemsNameTheFlag() {
        assertThat(PubSubTopics.problem("cdc.{schema}.{table}"))
                .isEqualTo(
                        "--pubsub-topic 'cdc.{schema}.{table}' has an unknown placeholder: only"
                                + " {database} and {table}");
        assertThat(PubSubTopics.problem("cdc/{table}"))
                .startsWith("--pubsub-topic 'cdc/{table}' has characters Pub/Sub forbids");
        assertThat(PubSubTopics.problem("1-{table}"))
                .isEqualTo("--pubsub-topic '1-{table}' must start with a letter");
        assertThat(PubSubTopics.problem("")).contains("must start with a letter");
        assertThat(PubSubTopics.problem("google-{table}")).contains("must not start with 'goog'");
        assertThat(PubSubTopics.problem("{table}.cdc")).isNull();
    }

    @Test
    void aTopicIdOutsidePubSubsLengthsFailsNamingTheTableAndTheFlag() {
        String table = "T".repeat(300);
        assertThatThrownBy(() -> PubSubTopics.topicId("cdc.{table}", "db", table))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The Pub/Sub topic of table " + table)
                .hasMessageContaining("304 characters long; Pub/Sub takes 3 to 255")
                .hasMessageContaining("change --pubsub-topic 'cdc.{table}'");
        assertThatThrownBy(() -> PubSubTopics.topicId("{table}", "db", "T"))
                .hasMessageContaining("1 characters long");
    }
}
