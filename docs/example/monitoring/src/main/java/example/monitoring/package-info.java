/**
 * Recipe: Spool's MBeans scraped by Prometheus's JMX exporter, a Java agent in the monitored JVM.
 */
package example.monitoring;
