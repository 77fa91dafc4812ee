# The emulator image: the runnable emulator jar on a Java 17 runtime.
#
#   mvn -B -DskipTests package
#   docker build -f docker/emulator.Dockerfile -t spanner-cs-emulator .
FROM eclipse-temurin:17-jre

COPY spanner-cs-emulator/target/spanner-cs-emulator.jar /opt/spanner-cs-emulator.jar

# The emulator listens on 127.0.0.1 only: containers that use it share its network namespace
# (compose.yaml: network_mode "service:emulator").
EXPOSE 9010
ENTRYPOINT ["java", "-jar", "/opt/spanner-cs-emulator.jar"]
CMD ["--port", "9010", "--workload", "demo", "--churn-interval", "5s"]
