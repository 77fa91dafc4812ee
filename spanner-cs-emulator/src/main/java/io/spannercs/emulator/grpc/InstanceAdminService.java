package io.spannercs.emulator.grpc;

import com.google.spanner.admin.instance.v1.GetInstanceConfigRequest;
import com.google.spanner.admin.instance.v1.GetInstanceRequest;
import com.google.spanner.admin.instance.v1.Instance;
import com.google.spanner.admin.instance.v1.InstanceAdminGrpc;
import com.google.spanner.admin.instance.v1.InstanceConfig;
import com.google.spanner.admin.instance.v1.ListInstanceConfigsRequest;
import com.google.spanner.admin.instance.v1.ListInstanceConfigsResponse;
import com.google.spanner.admin.instance.v1.ListInstancesRequest;
import com.google.spanner.admin.instance.v1.ListInstancesResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Enough of the instance admin API for the client's emulator mode: one instance configuration and
 * the instances that hold the served databases.
 */
public final class InstanceAdminService extends InstanceAdminGrpc.InstanceAdminImplBase {
    static final String CONFIG_ID = "emulator-config";

    private final Supplier<Set<String>> instanceNames;

    /**
     * @param instanceNames full names ({@code projects/P/instances/I}) of the served instances
     */
    public InstanceAdminService(Supplier<Set<String>> instanceNames) {
        this.instanceNames = instanceNames;
    }

    private static InstanceConfig config(String project) {
        return InstanceConfig.newBuilder()
                .setName(project + "/instanceConfigs/" + CONFIG_ID)
                .setDisplayName("Emulator config")
                .build();
    }

    @Override
    public void listInstanceConfigs(
            ListInstanceConfigsRequest request,
            StreamObserver<ListInstanceConfigsResponse> observer) {
        observer.onNext(
                ListInstanceConfigsResponse.newBuilder()
                        .addInstanceConfigs(config(request.getParent()))
                        .build());
        observer.onCompleted();
    }

    @Override
    public void getInstanceConfig(
            GetInstanceConfigRequest request, StreamObserver<InstanceConfig> observer) {
        String name = request.getName();
        if (!name.endsWith("/instanceConfigs/" + CONFIG_ID)) {
            observer.onError(
                    Status.NOT_FOUND
                            .withDescription("Instance config not found: " + name)
                            .asRuntimeException());
            return;
        }
        observer.onNext(config(name.substring(0, name.indexOf("/instanceConfigs/"))));
        observer.onCompleted();
    }

    @Override
    public void listInstances(
            ListInstancesRequest request, StreamObserver<ListInstancesResponse> observer) {
        ListInstancesResponse.Builder b = ListInstancesResponse.newBuilder();
        for (String name : instanceNames.get()) {
            if (name.startsWith(request.getParent() + "/")) {
                b.addInstances(instance(name));
            }
        }
        observer.onNext(b.build());
        observer.onCompleted();
    }

    @Override
    public void getInstance(GetInstanceRequest request, StreamObserver<Instance> observer) {
        if (!instanceNames.get().contains(request.getName())) {
            observer.onError(
                    Status.NOT_FOUND
                            .withDescription("Instance not found: " + request.getName())
                            .asRuntimeException());
            return;
        }
        observer.onNext(instance(request.getName()));
        observer.onCompleted();
    }

    private static Instance instance(String name) {
        String project = name.substring(0, name.indexOf("/instances/"));
        return Instance.newBuilder()
                .setName(name)
                .setConfig(project + "/instanceConfigs/" + CONFIG_ID)
                .setDisplayName(name.substring(name.lastIndexOf('/') + 1))
                .setNodeCount(1)
                .setState(Instance.State.READY)
                .build();
    }
}
