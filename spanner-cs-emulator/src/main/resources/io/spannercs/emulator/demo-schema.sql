-- Demo schema of the Spanner change stream emulator: what `java -jar spanner-cs-emulator.jar`
-- serves without --ddl, and what `--workload demo` writes to.

CREATE TABLE Customers (
  CustomerId INT64 NOT NULL,
  Name STRING(MAX),
  Email STRING(MAX),
  Tier STRING(MAX),
  Tags ARRAY<STRING(MAX)>,
  CreatedAt TIMESTAMP
) PRIMARY KEY (CustomerId);

CREATE TABLE Orders (
  OrderId INT64 NOT NULL,
  CustomerId INT64,
  Status STRING(MAX),
  Amount NUMERIC,
  Items INT64,
  Discount FLOAT64,
  Notes JSON,
  UpdatedAt TIMESTAMP
) PRIMARY KEY (OrderId);

-- Every table, new partition mode, full new row plus old values of changed columns.
CREATE CHANGE STREAM Orders_cs FOR ALL
  OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW_AND_OLD_VALUES');

-- Orders and two columns of Customers, legacy partition mode.
CREATE CHANGE STREAM Orders_legacy_cs FOR Orders, Customers(Name, Tier)
  OPTIONS (value_capture_type = 'OLD_AND_NEW_VALUES');
