# Sourced by the spark-* scripts: a Spark Master and one-core Workers on 127.0.0.1, started as a
# Spark home's sbin scripts start them (Spark's JVM options), from spark/target; stopped on exit.
spark_cp="$here/spark/target/needle-wb-spark.jar:$here/spark/target/jars/*"
spark_opts=(-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs sun.util.calendar; do
  spark_opts+=(--add-opens=java.base/$p=ALL-UNNAMED)
done
export SPARK_HOME=$out/home SPARK_LOCAL_IP=127.0.0.1 SPARK_SCALA_VERSION=2.13
master_pid=; worker_pids=()
trap 'for p in "${worker_pids[@]}" $master_pid; do pkill -P "$p"; kill "$p"; done' EXIT
start_master() { # out port
  "$JAVA_HOME/bin/java" "${spark_opts[@]}" -Xmx512m -cp "$spark_cp" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$2" \
    --webui-port $(($2 + 1)) > "$1/master.log" 2>&1 &
  master_pid=$!
  sleep 8
}
start_worker() { # out port index memory
  "$JAVA_HOME/bin/java" "${spark_opts[@]}" -Xmx512m -cp "$spark_cp" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 1 \
    --memory "$4" --work-dir "$1/w$3" --webui-port $(($2 + 10 + $3)) "spark://127.0.0.1:$2" > "$1/w$3.log" 2>&1 &
  worker_pids+=($!)
  sleep 8
}
