package io.spannercs.flink.format;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Type information of a class Flink treats as one opaque field, serialized by a dedicated
 * serializer rather than Kryo; subclasses are stateless singletons that only name the class and
 * create the serializer. Not a key type.
 */
@Internal
public abstract class SingletonTypeInfo<T> extends TypeInformation<T> {
    private static final long serialVersionUID = 1L;

    private final Class<T> typeClass;
    private final String name;

    protected SingletonTypeInfo(Class<T> typeClass, String name) {
        this.typeClass = typeClass;
        this.name = name;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return typeClass;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public String toString() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().getName().hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o != null && o.getClass() == getClass();
    }
}
