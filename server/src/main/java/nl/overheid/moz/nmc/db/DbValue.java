package nl.overheid.moz.nmc.db;

/** A value stored under another spelling than its Java name (status values with hyphens). */
public interface DbValue {
    String dbValue();
}
