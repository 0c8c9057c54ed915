package example;

import static org.apache.spark.sql.avro.functions.from_avro;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min_by;
import static org.apache.spark.sql.functions.substring;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.when;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Settled volume per merchant per day, read from the service's session.events topic with nothing
 * but Spark, its Kafka source and spark-avro: the records are Avro single-object encoded (a 2-byte
 * marker, the writer schema's 8-byte CRC-64-AVRO fingerprint, then the Avro binary record), so each
 * record is matched to its writer schema by fingerprint (schemas/SessionEvent.avsc and every older
 * version in schemas/history/SessionEvent/) and decoded from byte 11 with from_avro.
 *
 * <p>A session is settled once: by SweepCompleted when nothing is bridged (its delivered_amount),
 * else by BridgeCompleted (its minted_amount), both in the settlement asset's base units (USDC, 6
 * decimals). Its merchant is SessionCreated's merchant_id; anonymous sessions have none and are
 * left out. The day is the settling event's occurred_at, in UTC.
 *
 * <p>Arguments: the brokers (host:port,...), the schemas directory, the output file: one JSON line
 * per (merchant, day), {"merchant_id", "day", "settled_volume", "sessions"}.
 */
public final class SettledVolume {
  private static final String TOPIC = "session.events";

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: SettledVolume <brokers> <schemas directory> <output file>");
      System.exit(2);
    }
    String brokers = args[0];
    Path schemas = Path.of(args[1]);
    Path output = Path.of(args[2]);
    SparkSession spark =
        SparkSession.builder()
            .appName("settled-volume")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");

    // The whole topic as it stands now; aborted transactions' records are not read.
    Dataset<Row> records =
        spark
            .read()
            .format("kafka")
            .option("kafka.bootstrap.servers", brokers)
            .option("kafka.isolation.level", "read_committed")
            .option("subscribe", TOPIC)
            .option("startingOffsets", "earliest")
            .option("endingOffsets", "latest")
            .load()
            .select(col("value"));

    // One decoded slice per writer schema, reduced to the columns the volume needs.
    Dataset<Row> events = null;
    for (Path file : writerSchemas(schemas)) {
      String json = Files.readString(file);
      byte[] header = header(new Schema.Parser().parse(json));
      Dataset<Row> decoded =
          records
              .where(substring(col("value"), 1, 10).equalTo(lit(header)))
              .select(
                  from_avro(
                          expr("substring(value, 11)"),
                          json,
                          Map.of("mode", "FAILFAST", "enableStableIdentifiersForUnionType", "true"))
                      .as("e"))
              .select("e.*");
      Dataset<Row> slice = decoded.select(columns(decoded.schema()));
      events = events == null ? slice : events.unionByName(slice);
    }

    Dataset<Row> merchants =
        events
            .where(col("merchant_id").isNotNull())
            .select(col("session_id"), col("merchant_id"));
    Dataset<Row> settled =
        events
            .where(col("settled").isNotNull())
            // A session settles once; should its journal hold a second settling event, the first counts.
            .groupBy(col("session_id"))
            .agg(
                min_by(col("settled"), col("occurred_at")).as("settled"),
                min_by(col("occurred_at"), col("occurred_at")).as("settled_at"));
    Dataset<Row> volume =
        settled
            .join(merchants, "session_id")
            .groupBy(col("merchant_id"), to_date(col("settled_at")).as("day"))
            .agg(
                expr("cast(sum(cast(settled as decimal(38,0))) as string)").as("settled_volume"),
                expr("count(*)").as("sessions"))
            .orderBy(col("merchant_id"), col("day"));
    Files.write(output, volume.toJSON().collectAsList());
    spark.stop();
  }

  /** The current SessionEvent schema and every older version still readable on the topic. */
  private static List<Path> writerSchemas(Path schemas) throws Exception {
    List<Path> files = new ArrayList<>();
    files.add(schemas.resolve("SessionEvent.avsc"));
    Path history = schemas.resolve("history").resolve("SessionEvent");
    if (Files.isDirectory(history)) {
      try (Stream<Path> old = Files.list(history)) {
        old.filter(p -> p.toString().endsWith(".avsc")).sorted().forEach(files::add);
      }
    }
    return files;
  }

  /** The first 10 bytes of every record this schema wrote: C3 01, then its fingerprint, little-endian. */
  private static byte[] header(Schema schema) {
    long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
    ByteBuffer buf = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
    buf.put(HexFormat.of().parseHex("c301"));
    buf.putLong(fingerprint);
    return buf.array();
  }

  /**
   * session_id, occurred_at, merchant_id (SessionCreated) and settled (the settling event's amount),
   * from one schema version's decoded struct; a field that version lacks is null.
   */
  private static Column[] columns(StructType decoded) {
    String created = "event.member_SessionCreated";
    String swept = "event.member_SweepCompleted";
    String bridged = "event.member_BridgeCompleted";
    Column sweptAmount =
        has(decoded, swept)
            ? when(col(swept + ".bridged").equalTo(lit(false)), col(swept + ".delivered_amount"))
            : lit(null);
    return new Column[] {
      col("session_id"),
      col("occurred_at"),
      (has(decoded, created + ".merchant_id") ? col(created + ".merchant_id") : lit(null).cast("string"))
          .as("merchant_id"),
      (has(decoded, bridged)
              ? when(col(bridged).isNotNull(), col(bridged + ".minted_amount")).otherwise(sweptAmount)
              : sweptAmount)
          .cast("string")
          .as("settled"),
    };
  }

  /** Whether a dotted path names a field of the struct. */
  private static boolean has(StructType struct, String path) {
    StructType at = struct;
    String[] parts = path.split("\\.");
    for (int i = 0; i < parts.length; i++) {
      String name = parts[i];
      if (!List.of(at.fieldNames()).contains(name)) return false;
      if (i == parts.length - 1) return true;
      if (!(at.apply(name).dataType() instanceof StructType next)) return false;
      at = next;
    }
    return true;
  }
}
