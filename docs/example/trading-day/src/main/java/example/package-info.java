/**
 * Recipe: a trading day. A queue that rolls at 17:00 New York with index times, written and replayed from a time
 * with the bytes API.
 */
package example;
