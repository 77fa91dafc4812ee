package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class JobOptionsTest {

    @Test
    void namesEveryMissingUnknownAndMalformedFlag() {
        assertThatThrownBy(
                        () ->
                                JobOptions.parse(
                                        new String[] {
                                            "--project",
                                            "p",
                                            "--colour",
                                            "red",
                                            "--format",
                                            "xml",
                                            "--parallelism",
                                            "0",
                                            "--start-timestamp",
                                            "yesterday",
                                            "--tables",
                                            "/Orders[",
                                            "--unknown-values",
                                            "ignore",
                                            "--order",
                                            "key",
                                            "--rpc-priority",
                                            "urgent",
                                            "--heartbeat-interval",
                                            "50ms",
                                            "--old-values",
                                            "none"
                                        }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--instance is required")
                .hasMessageContaining("--database is required")
                .hasMessageContaining("--change-stream is required")
                .hasMessageContaining("--output is required")
                .hasMessageContaining("unknown flag --colour")
                .hasMessageContaining(
                        "--format must be datastream-json, debezium-json or avro, got 'xml'")
                .hasMessageContaining("--parallelism must be a positive number")
                .hasMessageContaining("--start-timestamp 'yesterday'")
                .hasMessageContaining("--tables")
                .hasMessageContaining("'/Orders['")
                .hasMessageContaining("--unknown-values must be fail or raw, got 'ignore'")
                .hasMessageContaining("--order must be source or commit, got 'key'")
                .hasMessageContaining("--rpc-priority must be low, medium or high, got 'urgent'")
                .hasMessageContaining(
                        "--heartbeat-interval must be a duration from 100ms to 300s like 1s, got"
                                + " '50ms'")
                .hasMessageContaining("--old-values must be include or omit, got 'none'");
    }

    @Test
    void readsEveryFlag() {
        JobOptions o =
                JobOptions.parse(
                        new String[] {
                            "--project",
                            "p",
                            "--instance",
                            "i",
                            "--database",
                            "d",
                            "--change-stream",
                            "cs",
                            "--output",
                            "/tmp/out",
                            "--format=avro",
                            "--emulator-host",
                            "127.0.0.1:9010",
                            "--start-timestamp",
                            "2026-01-02T03:04:05Z",
                            "--end-timestamp",
                            "2026-01-02T04:04:05Z",
                            "--tables",
                            "Orders",
                            "--parallelism",
                            "3",
                            "--checkpoint-interval",
                            "2s",
                            "--unknown-values",
                            "RAW",
                            "--order",
                            "commit",
                            "--rpc-priority",
                            "LOW",
                            "--database-role",
                            "cdc_reader",
                            "--heartbeat-interval",
                            "500ms"
                        });
        assertThat(o.format).isEqualTo(JobOptions.Format.AVRO);
        assertThat(o.parallelism).isEqualTo(3);
        assertThat(o.checkpointInterval).hasSeconds(2);
        assertThat(o.end).isAfter(o.start);
        assertThat(o.tables.isAll()).isFalse();
        assertThat(o.unknownValues).isEqualTo(UnknownValueHandling.RAW);
        assertThat(o.order).isEqualTo(JobOptions.Order.COMMIT);
        assertThat(o.rpcPriority).isEqualTo(SpannerSourceConfig.RpcPriority.LOW);
        assertThat(o.databaseRole).isEqualTo("cdc_reader");
        assertThat(o.heartbeatInterval).isEqualTo(Duration.ofMillis(500));
        JobOptions defaults = parse();
        assertThat(defaults.order).isEqualTo(JobOptions.Order.SOURCE);
        assertThat(defaults.rpcPriority).isNull();
        assertThat(defaults.databaseRole).isNull();
        assertThat(defaults.heartbeatInterval).isNull();
    }

    @Test
    void readsRpcPrioritiesInAnyCase() {
        assertThat(parse("--rpc-priority", "low").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.LOW);
        assertThat(parse("--rpc-priority=Medium").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.MEDIUM);
        assertThat(parse("--rpc-priority", "HIGH").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.HIGH);
        assertThatThrownBy(() -> parse("--rpc-priority", "normal"))
                .hasMessageContaining("--rpc-priority must be low, medium or high, got 'normal'");
        assertThatThrownBy(() -> parse("--database-role", " "))
                .hasMessageContaining("--database-role needs a role name");
    }

    @Test
    void heartbeatIntervalIsADurationFrom100MsTo300S() {
        assertThat(parse("--heartbeat-interval", "100ms").heartbeatInterval)
                .isEqualTo(Duration.ofMillis(100));
        assertThat(parse("--heartbeat-interval", "5 min").heartbeatInterval)
                .isEqualTo(Duration.ofSeconds(300));
        assertThat(parse("--heartbeat-interval=2s").heartbeatInterval)
                .isEqualTo(Duration.ofSeconds(2));
        for (String bad : new String[] {"99ms", "301s"}) {
            assertThatThrownBy(() -> parse("--heartbeat-interval", bad))
                    .as(bad)
                    .hasMessageContaining(
                            "--heartbeat-interval must be a duration from 100ms to 300s like 1s,"
                                    + " got '"
                                    + bad
                                    + "'");
        }
        for (String bad : new String[] {"-1s", "often", "1 fortnight"}) {
            assertThatThrownBy(() -> parse("--heartbeat-interval", bad))
                    .as(bad)
                    .hasMessageContaining("--heartbeat-interval '" + bad + "' is not a duration");
        }
    }

    @Test
    void aDurationWithoutAUnitIsAnErrorNamingTheFlag() {
        // It was read as milliseconds: --checkpoint-interval 10 checkpointed every 10 ms.
        assertThatThrownBy(() -> parse("--checkpoint-interval", "10"))
                .hasMessageStartingWith("--checkpoint-interval needs a unit, e.g. 10s; got '10'");
        assertThatThrownBy(() -> parse("--heartbeat-interval", "500"))
                .hasMessageStartingWith("--heartbeat-interval needs a unit, e.g. 10s; got '500'");
        assertThat(parse("--checkpoint-interval", "2min").checkpointInterval)
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(parse("--checkpoint-interval", "500ms").checkpointInterval)
                .isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> parse("--checkpoint-interval", "0s"))
                .hasMessageStartingWith("--checkpoint-interval '0s' must be more than 0");
    }

    @Test
    void theNameCheckWaits20SUnlessToldAndZeroSkipsIt() {
        assertThat(parse().nameCheckTimeout).isEqualTo(Duration.ofSeconds(20));
        assertThat(parse("--name-check-timeout", "2min").nameCheckTimeout)
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(parse("--name-check-timeout", "0s").nameCheckTimeout).isZero();
        assertThatThrownBy(() -> parse("--name-check-timeout", "30"))
                .hasMessageStartingWith(
                        "--name-check-timeout needs a unit, e.g. 0s or 10s; got '30'");
    }

    @Test
    void priorityRoleAndHeartbeatReachTheSource() {
        SpannerSourceConfig config =
                SpannerCdcJob.source(
                                parse(
                                        "--rpc-priority",
                                        "medium",
                                        "--database-role",
                                        "cdc_reader",
                                        "--heartbeat-interval",
                                        "250ms"),
                                ChangeEventDeserializer.changeEvents())
                        .config();
        assertThat(config.rpcPriority()).isEqualTo(SpannerSourceConfig.RpcPriority.MEDIUM);
        assertThat(config.databaseRole()).isEqualTo("cdc_reader");
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
        SpannerSourceConfig defaults =
                SpannerCdcJob.source(parse(), ChangeEventDeserializer.changeEvents()).config();
        assertThat(defaults.rpcPriority()).isNull();
        assertThat(defaults.databaseRole()).isNull();
        assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void oldValuesAreIncludedUnlessOmitted() {
        assertThat(parse().includeOldValues).isTrue();
        assertThat(parse("--old-values", "include").includeOldValues).isTrue();
        assertThat(parse("--old-values=OMIT").includeOldValues).isFalse();
        assertThatThrownBy(() -> parse("--old-values", "false"))
                .hasMessageContaining("--old-values must be include or omit, got 'false'");
    }

    @Test
    void readsStartupModes() {
        java.time.Instant at = java.time.Instant.parse("2026-01-02T03:04:05Z");
        assertThat(parse().startupMode).isEqualTo(StartupMode.latest());
        assertThat(parse("--start-timestamp", at.toString()).startupMode)
                .isEqualTo(StartupMode.timestamp(at));
        assertThat(parse("--startup-mode", "initial").startupMode)
                .isEqualTo(StartupMode.snapshotThenStream());
        assertThat(
                        parse("--startup-mode", "INITIAL", "--start-timestamp", at.toString())
                                .startupMode)
                .isEqualTo(StartupMode.snapshotThenStream(at));
        assertThat(parse("--startup-mode", "snapshot").startupMode)
                .isEqualTo(StartupMode.snapshotOnly());
        assertThatThrownBy(() -> parse("--startup-mode", "earliest"))
                .hasMessageContaining(
                        "--startup-mode must be latest, timestamp, initial or snapshot, got"
                                + " 'earliest'");
        assertThatThrownBy(() -> parse("--startup-mode", "timestamp"))
                .hasMessageContaining("--startup-mode timestamp needs --start-timestamp");
        assertThatThrownBy(
                        () -> parse("--startup-mode", "snapshot", "--end-timestamp", at.toString()))
                .hasMessageContaining("drop --end-timestamp");
    }

    private static JobOptions parse(String... extra) {
        java.util.List<String> args =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "--project",
                                "p",
                                "--instance",
                                "i",
                                "--database",
                                "d",
                                "--change-stream",
                                "cs",
                                "--output",
                                "/tmp/out"));
        args.addAll(java.util.List.of(extra));
        return JobOptions.parse(args.toArray(new String[0]));
    }

    @Test
    void kafkaHasDefaultsForAllButTheBrokers() {
        JobOptions o = kafka();
        assertThat(o.sink).isEqualTo(JobOptions.Sink.KAFKA);
        assertThat(o.output).isNull();
        assertThat(o.bootstrapServers).isEqualTo("127.0.0.1:9092");
        assertThat(o.topic).isEqualTo("spanner.{database}.{table}");
        assertThat(o.deliveryGuarantee).isEqualTo(JobOptions.DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(o.transactionalIdPrefix).isEqualTo("spanner-cdc.p.i.d.cs");
        assertThat(o.order).as("always reordered").isEqualTo(JobOptions.Order.COMMIT);
        assertThat(o.kafkaProperties).isEmpty();
        assertThat(o.checkpointInterval).hasSeconds(10);
        assertThat(parse().sink).isEqualTo(JobOptions.Sink.FILES);
        assertThat(parse().bootstrapServers).isNull();

        JobOptions given =
                kafka(
                        "--topic",
                        "cdc-{table}",
                        "--delivery-guarantee",
                        "AT-LEAST-ONCE",
                        "--transactional-id-prefix",
                        "orders-job",
                        "--kafka-property",
                        "security.protocol=SASL_SSL",
                        "--kafka-property=sasl.jaas.config=Module required password=\"x=y\";",
                        "--order",
                        "commit");
        assertThat(given.topic).isEqualTo("cdc-{table}");
        assertThat(given.deliveryGuarantee).isEqualTo(JobOptions.DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(given.transactionalIdPrefix).isEqualTo("orders-job");
        assertThat(given.kafkaProperties)
                .containsExactly(
                        java.util.Map.entry("security.protocol", "SASL_SSL"),
                        java.util.Map.entry(
                                "sasl.jaas.config", "Module required password=\"x=y\";"));
    }

    @Test
    void kafkaTakesEveryFormatAndFilesAllButDebeziumJson() {
        assertThat(kafka().format).isEqualTo(JobOptions.Format.JSON);
        assertThat(kafka("--format", "datastream-json").format).isEqualTo(JobOptions.Format.JSON);
        assertThat(kafka("--format", "json").format).isEqualTo(JobOptions.Format.JSON);
        assertThat(kafka("--format", "debezium-json").format)
                .isEqualTo(JobOptions.Format.DEBEZIUM_JSON);
        assertThat(kafka("--format=Debezium-JSON").format)
                .isEqualTo(JobOptions.Format.DEBEZIUM_JSON);
        assertThat(kafka("--format", "avro").format).isEqualTo(JobOptions.Format.AVRO);
        assertThat(parse().format).isEqualTo(JobOptions.Format.JSON);
        assertThat(parse("--format", "datastream-json").format).isEqualTo(JobOptions.Format.JSON);
        assertThat(parse("--format", "avro").format).isEqualTo(JobOptions.Format.AVRO);
        assertThatThrownBy(() -> parse("--format", "debezium-json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "--format debezium-json is for --sink kafka: files and pubsub take"
                                + " datastream-json or avro");
        assertThatThrownBy(() -> kafka("--format", "debezium"))
                .hasMessageContaining(
                        "--format must be datastream-json, debezium-json or avro, got"
                                + " 'debezium'");
    }

    @Test
    void kafkaFlagsAreCheckedNamingTheFlag() {
        assertThatThrownBy(
                        () ->
                                JobOptions.parse(
                                        new String[] {
                                            "--project", "p",
                                            "--instance", "i",
                                            "--database", "d",
                                            "--change-stream", "cs",
                                            "--sink", "kafka",
                                            "--output", "/tmp/out",
                                            "--order", "source",
                                            "--delivery-guarantee", "twice",
                                            "--topic", "cdc.{schema}.{table}"
                                        }))
                .hasMessageContaining("--bootstrap-servers is required")
                .hasMessageContaining("--output is for --sink files: drop it with --sink kafka")
                .hasMessageContaining("--sink kafka always orders each row's changes by commit")
                .hasMessageContaining(
                        "--delivery-guarantee must be exactly-once or at-least-once, got 'twice'")
                .hasMessageContaining("--topic 'cdc.{schema}.{table}' has an unknown placeholder");
        assertThatThrownBy(() -> parse("--sink", "sqs"))
                .hasMessageContaining("--sink must be files, kafka or pubsub, got 'sqs'");
        assertThatThrownBy(() -> kafka("--topic", "spanner.{database}"))
                .hasMessageContaining("--topic 'spanner.{database}' needs {table}");
        assertThatThrownBy(() -> kafka("--topic", "cdc/{table}"))
                .hasMessageContaining(
                        "--topic 'cdc/{table}' has characters Kafka forbids in topic names");
        assertThatThrownBy(() -> kafka("--transactional-id-prefix", " "))
                .hasMessageContaining("--transactional-id-prefix needs a prefix");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "--bootstrap-servers",
                                        "h:9092",
                                        "--topic",
                                        "t.{table}",
                                        "--kafka-property",
                                        "acks=all"))
                .hasMessageContaining("--bootstrap-servers is for --sink kafka")
                .hasMessageContaining("--topic is for --sink kafka")
                .hasMessageContaining("--kafka-property is for --sink kafka");
    }

    /** Values of --kafka-property may be passwords: no problem prints one. */
    @Test
    void kafkaPropertyProblemsNameTheKeyNeverTheValue() {
        String secret = "hunter2-secret";
        assertThatThrownBy(
                        () ->
                                kafka(
                                        "--kafka-property",
                                        "sasl.password " + secret,
                                        "--kafka-property",
                                        "=" + secret,
                                        "--kafka-property",
                                        "bootstrap.servers=" + secret,
                                        "--kafka-property",
                                        "transactional.id=" + secret,
                                        "--kafka-property",
                                        "ssl.key.password=" + secret,
                                        "--kafka-property",
                                        "ssl.key.password=" + secret + "2",
                                        "--kafka-property",
                                        "transaction.timeout.ms=" + secret))
                .hasMessageContaining(
                        "--kafka-property number 1 must be KEY=VALUE (not printed: it may hold a"
                                + " secret)")
                .hasMessageContaining("--kafka-property number 2 must be KEY=VALUE")
                .hasMessageContaining(
                        "--kafka-property bootstrap.servers is set by the job: use"
                                + " --bootstrap-servers")
                .hasMessageContaining("--kafka-property transactional.id is set by the job")
                .hasMessageContaining("--kafka-property ssl.key.password is given twice")
                .hasMessageContaining(
                        "--kafka-property transaction.timeout.ms must be milliseconds, longer"
                                + " than --checkpoint-interval (10000 ms)")
                .message()
                .doesNotContain(secret);
        assertThatThrownBy(
                        () ->
                                kafka(
                                        "--checkpoint-interval",
                                        "1min",
                                        "--kafka-property",
                                        "transaction.timeout.ms=60000"))
                .hasMessageContaining("longer than --checkpoint-interval (60000 ms)");
        assertThat(kafka("--kafka-property", "transaction.timeout.ms=60001").kafkaProperties)
                .containsEntry("transaction.timeout.ms", "60001");
    }

    /** The sink gets the brokers, the guarantee's settings and every property, the user's last. */
    @Test
    void kafkaSettingsReachTheProducer() throws Exception {
        java.util.Properties eo =
                producerConfig(
                        kafka(
                                "--kafka-property",
                                "security.protocol=SASL_SSL",
                                "--kafka-property",
                                "linger.ms=5"));
        assertThat(eo)
                .containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("transaction.timeout.ms", "900000")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("linger.ms", "5");
        assertThat(
                        producerConfig(kafka("--kafka-property", "transaction.timeout.ms=120000"))
                                .get("transaction.timeout.ms"))
                .isEqualTo("120000");
        assertThat(producerConfig(kafka("--delivery-guarantee", "at-least-once")))
                .doesNotContainKey("transactional.id");
    }

    @Test
    void topicNamesReplaceWhatKafkaForbids() {
        assertThat(DatastreamJsonKafka.topic("spanner.{database}.{table}", "orders-db", "Lines"))
                .isEqualTo("spanner.orders-db.Lines");
        assertThat(DatastreamJsonKafka.topic("cdc_{table}", "d", "sales.Orders"))
                .isEqualTo("cdc_sales.Orders");
        assertThat(DatastreamJsonKafka.topic("{database}-{table}", "d b", "Tä/b{le}"))
                .isEqualTo("d_b-T__b_le_");
        assertThatThrownBy(() -> DatastreamJsonKafka.topic("{table}", "d", "T".repeat(250)))
                .hasMessageContaining("more than Kafka's 249: shorten --topic '{table}'");
    }

    private static java.util.Properties producerConfig(JobOptions o) throws Exception {
        org.apache.flink.connector.kafka.sink.KafkaSink<?> sink =
                DatastreamJsonKafka.sink(
                        o,
                        io.spannercs.flink.format.datastream.DatastreamContext.builder(
                                        "p", "i", "d", "cs")
                                .build());
        // The sink shows its producer settings to tests only (protected).
        java.lang.reflect.Method config =
                org.apache.flink.connector.kafka.sink.KafkaSink.class.getDeclaredMethod(
                        "getKafkaProducerConfig");
        config.setAccessible(true);
        java.util.Properties p = new java.util.Properties();
        p.putAll((java.util.Properties) config.invoke(sink));
        // Kafka's own type for values set as objects: compare as text.
        p.replaceAll((k, v) -> String.valueOf(v));
        return p;
    }

    private static JobOptions kafka(String... extra) {
        java.util.List<String> args =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "--project",
                                "p",
                                "--instance",
                                "i",
                                "--database",
                                "d",
                                "--change-stream",
                                "cs",
                                "--sink",
                                "kafka",
                                "--bootstrap-servers",
                                "127.0.0.1:9092"));
        args.addAll(java.util.List.of(extra));
        return JobOptions.parse(args.toArray(new String[0]));
    }

    @Test
    void usageListsEveryFlag() {
        String usage = JobOptions.usage();
        JobOptions.FLAGS.keySet().forEach(f -> assertThat(usage).contains("--" + f));
    }
}
